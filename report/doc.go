// Package report renders an artifact as one self-contained, offline HTML page:
// outcome, release-order timeline per actor, unit inspector, environment and
// replay command, under a strict Content-Security-Policy and with no network.
package report

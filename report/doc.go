// Package report renders an artifact as one self-contained, offline HTML page:
// outcome, release-order timeline per actor (paged for long recordings), unit
// inspector, environment and replay command, under a strict Content-Security-Policy
// and with no network. The page can open another artifact file, validated in the
// page as artifact.Decode validates it, and download the JSON it shows.
package report

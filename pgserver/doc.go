// Package pgserver provides the PostgreSQL server an Interleave run talks to:
// a managed throwaway cluster from local binaries (the default), a dedicated
// test server given by URL, or a throwaway Docker container. Each attempt gets
// a database of its own, reset to the state the scenario's setup produces.
package pgserver

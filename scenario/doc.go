// Package scenario runs races described in files instead of Go code: YAML
// scenario files (command actors, SQL setup and invariant) and PostgreSQL
// isolation-tester specs, rendered in the tester's output format.
package scenario

// Package scenario runs races described in files instead of Go code: YAML
// scenario files (command actors, SQL setup and invariant), PostgreSQL
// isolation-tester specs, rendered in the tester's output format, and
// JavaScript defineScenario modules written for the original tool (LoadJS).
package scenario

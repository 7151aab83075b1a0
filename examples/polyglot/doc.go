// Package polyglot holds scenario files whose actors are not Go: Node.js
// with node-postgres (node/), Python with psycopg2 (python/) and plain psql
// shell scripts (psql/). Each directory has a race (race.yaml) and its
// repair (fixed.yaml), runnable with `interleave run FILE.yaml`; the tests
// of this package load them with scenario.LoadFile and check that the race
// is found and that the repair passes an exhaustive search.
package polyglot

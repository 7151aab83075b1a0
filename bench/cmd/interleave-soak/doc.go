// Command interleave-soak is the fault soak of `interleave` (Linux only,
// not part of CI): it runs the real binary while it kills what the binary
// started, and after each run checks that nothing is left — no process,
// no directory in the run's own TMPDIR, no listening port, no database on
// a dedicated server — and that the run ended with the right exit code and
// a message. docs/reliability.md ("Fault soak") has the figures.
//
//	go run ./bench/cmd/interleave-soak -mode all
//
// Modes: faults (a search of -attempts attempts on a scenario file with
// psql actors while a loop kills random actor backends with SIGTERM and
// random psql processes with SIGKILL), postmaster (-postmaster-runs
// shorter searches whose postmaster is killed with SIGKILL: exit 2 and
// "PostgreSQL terminated"), signals (-runs runs of `interleave run` on a Go
// scenario program killed with SIGKILL, SIGTERM or SIGINT during the build,
// the server's start or the search; every -dedicated-every-th against a
// dedicated server started here).
package main

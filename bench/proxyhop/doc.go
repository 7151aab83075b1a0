// Command proxyhop measures the cost of one proxy hop in front of
// PostgreSQL, side by side in one run: a direct connection, PgBouncer in
// session mode, Toxiproxy, `interleave proxy` (capture off and on) and the
// proxy gated by Interleave's scheduler as a scenario attempt gates it. It
// is not part of CI: it installs PgBouncer with apt-get when missing and
// builds Toxiproxy from the Go module proxy into a temporary directory.
//
//	go run ./bench/proxyhop -seconds 8 -rounds 3
//
// Every path is measured with pgbench (one client, SELECT 1, simple and
// extended protocol; 16 clients for throughput) against the same managed
// PostgreSQL, the paths alternating within each round in a rotating order
// so that a noisy machine hits them alike. Figures are medians over the
// rounds, with each path's difference to the direct connection measured in
// the same round.
package main

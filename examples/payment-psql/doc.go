// Package paymentpsql is examples/payment as scenario files with non-Go
// actors: a shell script that runs the charge with psql and runs it again
// when psql fails (race.yaml), and the repair with an idempotency key
// (fixed.yaml). Their options name the faults to search:
//
//	interleave run examples/payment-psql/race.yaml
//	interleave run examples/payment-psql/fixed.yaml
package paymentpsql

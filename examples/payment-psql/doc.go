// Package paymentpsql is examples/payment as scenario files with non-Go
// actors: a shell script that runs the charge with psql and runs it again
// when psql fails (race.yaml), and the repair with an idempotency key
// (fixed.yaml). Search them with faults:
//
//	interleave run examples/payment-psql/race.yaml --faults lost-reply
//	interleave run examples/payment-psql/fixed.yaml --faults lost-reply,reset,terminate
package paymentpsql

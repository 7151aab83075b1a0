// Command payment-fixed is examples/payment repaired: the request carries
// an idempotency key, the charge inserts it under a unique constraint with
// INSERT ... ON CONFLICT DO NOTHING, and a retry that finds the key already
// there knows the first try committed and charges nothing. Every order and
// every fault (lost-reply, reset, terminate) passes:
//
//	go run ./cmd/interleave run ./examples/payment-fixed --faults lost-reply,reset,terminate
package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pginterleave/interleave"
)

// pay charges order 1 once under one idempotency key, whatever number of
// tries it takes.
func pay(ctx context.Context, connString string) (any, error) {
	const key = "order-1-payment" // chosen once per request, before any try
	var err error
	for try := 1; try <= 3; try++ {
		var charged bool
		if charged, err = charge(ctx, connString, key, 1, 30); err == nil || !connectionError(ctx, err) {
			return map[string]any{"try": try, "charged": charged}, err
		}
	}
	return nil, err
}

// charge records the charge under key and takes the amount, in one
// transaction; charged is false when an earlier try had committed it.
func charge(ctx context.Context, connString, key string, order, amount int) (charged bool, err error) {
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		return false, err
	}
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	if err != nil {
		return false, err
	}
	defer tx.Rollback(ctx)
	tag, err := tx.Exec(ctx, "INSERT INTO charges (idempotency_key, order_id, amount) VALUES ($1, $2, $3) ON CONFLICT (idempotency_key) DO NOTHING", key, order, amount)
	if err != nil {
		return false, err
	}
	if tag.RowsAffected() == 0 {
		return false, nil // an earlier try committed this charge
	}
	if _, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance - $1 WHERE id = 1", amount); err != nil {
		return false, err
	}
	return true, tx.Commit(ctx)
}

// connectionError is the same retry rule as examples/payment's.
func connectionError(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "57P01" || strings.HasPrefix(pgErr.Code, "08")
	}
	return true
}

// Scenario is the repaired payment and the same rule.
func Scenario() interleave.Scenario {
	return interleave.Scenario{
		Name: "payment", // the same scenario, repaired: a recording of examples/payment replays against it
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, `CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL);
				INSERT INTO accounts VALUES (1, 100);
				CREATE TABLE charges (id serial PRIMARY KEY, idempotency_key text NOT NULL UNIQUE, order_id int NOT NULL, amount int NOT NULL)`)
			return err
		},
		Actors: []interleave.Actor{
			{Name: "checkout", Run: pay},
			{Name: "statement", Run: statement},
		},
		// A request that fails is allowed (its client saw the error); a
		// charge taken twice, or taken without its balance, is not.
		HandleActorErrors: true,
		Invariant:         chargedOnce,
	}
}

// statement is a customer reading their charges while the payment runs.
func statement(ctx context.Context, connString string) (any, error) {
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	var n int
	err = conn.QueryRow(ctx, "SELECT count(*) FROM charges").Scan(&n)
	return n, err
}

// chargedOnce is the rule: order 1 is charged at most once, exactly once
// when the checkout reported success, and the balance agrees with the
// charges.
func chargedOnce(ctx context.Context, db *pgx.Conn, results []interleave.ActorResult) error {
	var charges, balance int
	if err := db.QueryRow(ctx, "SELECT (SELECT count(*) FROM charges WHERE order_id = 1), (SELECT balance FROM accounts WHERE id = 1)").Scan(&charges, &balance); err != nil {
		return err
	}
	if charges > 1 || balance != 100-30*charges {
		return fmt.Errorf("order 1 must be charged at most once: %d charges, balance %d", charges, balance)
	}
	if results[0].Err == nil && charges != 1 {
		return fmt.Errorf("the checkout succeeded but order 1 has %d charges", charges)
	}
	return nil
}

func main() { interleave.Main(Scenario()) }

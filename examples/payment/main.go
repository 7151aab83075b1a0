// Command payment is the double charge after a lost COMMIT reply: a
// payment handler runs its charge in a transaction and, on a connection
// error, runs the whole transaction again. When the connection breaks after
// PostgreSQL committed and before the reply arrived, the retry charges the
// order a second time. Only a fault finds it: no order of commands does.
//
//	go run ./cmd/interleave run ./examples/payment --faults lost-reply --out failure.json
//
// examples/payment-fixed is the repair: an idempotency key.
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

// pay is the application code under test: charge order 1 once, retrying
// the transaction when the connection fails.
func pay(ctx context.Context, connString string) (any, error) {
	var err error
	for try := 1; try <= 3; try++ {
		if err = charge(ctx, connString, 1, 30); err == nil || !connectionError(ctx, err) {
			return try, err
		}
	}
	return nil, err
}

// charge takes amount from the customer's balance and records the charge,
// in one transaction on a new connection.
func charge(ctx context.Context, connString string, order, amount int) error {
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "INSERT INTO charges (order_id, amount) VALUES ($1, $2)", order, amount); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance - $1 WHERE id = 1", amount); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// connectionError is the handler's idea of a transient failure: anything
// that is not an answer from PostgreSQL (the connection broke), or
// PostgreSQL ending the session (class 08, 57P01).
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

// Scenario is the payment and its rule: the order is charged once.
func Scenario() interleave.Scenario {
	return interleave.Scenario{
		Name: "payment",
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, `CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL);
				INSERT INTO accounts VALUES (1, 100);
				CREATE TABLE charges (id serial PRIMARY KEY, order_id int NOT NULL, amount int NOT NULL)`)
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

// Command transfer-fixed is examples/transfer repaired. The transfer has
// an id the client chose (an idempotency key), recorded in the transaction
// that moves the money, under a primary key. After a connection error the
// client does not know whether its COMMIT ran; before trying again it asks
// the database, on a new connection, whether transfer 7 is recorded, and
// stops if it is. The primary key is the guarantee (a second recording
// fails with 23505); the read is what lets the handler answer "done"
// instead of an error. Every order with every fault passes:
//
//	go run ./cmd/interleave run ./examples/transfer-fixed --faults lost-reply,reset,terminate
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

// transferID is the id the client gave this transfer.
const transferID = 7

// transfer moves 30 from account 1 to account 2 once, whatever breaks.
func transfer(ctx context.Context, connString string) (any, error) {
	var err error
	for try := 1; try <= 3; try++ {
		if try > 1 {
			// The last try's COMMIT may have run: find out first.
			done, cerr := committed(ctx, connString, transferID)
			if cerr != nil {
				if connectionError(ctx, cerr) {
					err = cerr
					continue
				}
				return nil, cerr
			}
			if done {
				return map[string]any{"try": try, "found": true}, nil
			}
		}
		if err = move(ctx, connString, transferID, 1, 2, 30); err == nil || !connectionError(ctx, err) {
			return map[string]any{"try": try, "found": false}, err
		}
	}
	return nil, err
}

// committed reports whether transfer id is recorded.
func committed(ctx context.Context, connString string, id int) (bool, error) {
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		return false, err
	}
	defer conn.Close(ctx)
	var done bool
	err = conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM transfers WHERE id = $1)", id).Scan(&done)
	return done, err
}

// move records the transfer and moves the money in one transaction on a
// new connection.
func move(ctx context.Context, connString string, id, from, to, amount int) error {
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
	// The record and the debit in one statement: a second recording of
	// the same id fails before any money moves.
	if _, err := tx.Exec(ctx, "WITH t AS (INSERT INTO transfers (id, amount) VALUES ($3, $1)) UPDATE accounts SET balance = balance - $1 WHERE id = $2", amount, from, id); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance + $1 WHERE id = $2", amount, to); err != nil {
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

// Scenario is examples/transfer's, with the transfers table.
func Scenario() interleave.Scenario {
	return interleave.Scenario{
		Name: "transfer",
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, `CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL);
				INSERT INTO accounts VALUES (1, 100), (2, 100);
				CREATE TABLE transfers (id int PRIMARY KEY, amount int NOT NULL)`)
			return err
		},
		Actors: []interleave.Actor{
			{Name: "transfer", Run: transfer},
			{Name: "audit", Run: audit},
		},
		HandleActorErrors: true,
		Invariant:         movedOnce,
	}
}

// audit reads the bank's total while the transfer runs.
func audit(ctx context.Context, connString string) (any, error) {
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	var total int
	err = conn.QueryRow(ctx, "SELECT sum(balance) FROM accounts").Scan(&total)
	return total, err
}

// movedOnce is examples/transfer's rule, with the record: one transfer
// recorded exactly when the money moved.
func movedOnce(ctx context.Context, db *pgx.Conn, results []interleave.ActorResult) error {
	if results[1].Err == nil && fmt.Sprint(results[1].Value) != "200" {
		return fmt.Errorf("the audit saw a total of %v; want 200", results[1].Value)
	}
	var a, b, recorded int
	if err := db.QueryRow(ctx, "SELECT (SELECT balance FROM accounts WHERE id = 1), (SELECT balance FROM accounts WHERE id = 2), (SELECT count(*) FROM transfers)").Scan(&a, &b, &recorded); err != nil {
		return err
	}
	want := [3]int{70, 130, 1}
	if results[0].Err != nil {
		want = [3]int{100, 100, 0}
	}
	if [3]int{a, b, recorded} != want {
		return fmt.Errorf("the transfer of 30 reported %s; balances %d and %d, %d transfers recorded; want %d and %d, %d", outcome(results[0].Err), a, b, recorded, want[0], want[1], want[2])
	}
	return nil
}

func outcome(err error) string {
	if err != nil {
		return "failure"
	}
	return "success"
}

func main() { interleave.Main(Scenario()) }

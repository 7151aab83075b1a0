// Command transfer is a transfer retried after a lost COMMIT reply: the
// handler moves 30 from account 1 to account 2 in one transaction and, on
// a connection error, runs the whole transaction again. The error does not
// say whether PostgreSQL committed (FoundationDB calls it
// commit_unknown_result): when the connection breaks after the COMMIT ran
// and before its reply arrived, the retry moves the money a second time.
// No order of commands finds it; a lost reply does:
//
//	go run ./cmd/interleave run ./examples/transfer --faults lost-reply --out failure.json
//
// examples/transfer-fixed is the repair: the transfer has an id, and a
// retry first asks the database whether the transfer committed.
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

// transfer is the application code under test: move 30 from account 1 to
// account 2, retrying the transaction when the connection fails.
func transfer(ctx context.Context, connString string) (any, error) {
	var err error
	for try := 1; try <= 3; try++ {
		if err = move(ctx, connString, 1, 2, 30); err == nil || !connectionError(ctx, err) {
			return try, err
		}
	}
	return nil, err
}

// move debits one account and credits the other in one transaction on a
// new connection.
func move(ctx context.Context, connString string, from, to, amount int) error {
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
	if _, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance - $1 WHERE id = $2", amount, from); err != nil {
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

// Scenario is the transfer beside an audit of the total, and the rule.
func Scenario() interleave.Scenario {
	return interleave.Scenario{
		Name: "transfer",
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, `CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL);
				INSERT INTO accounts VALUES (1, 100), (2, 100)`)
			return err
		},
		Actors: []interleave.Actor{
			{Name: "transfer", Run: transfer},
			{Name: "audit", Run: audit},
		},
		// A transfer that fails is allowed (its client saw the error);
		// money moved twice, or moved when the client was told it failed,
		// is not.
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

// movedOnce is the rule: the audit saw the whole total; the money moved
// once when the transfer reported success, and not at all when it
// reported failure.
func movedOnce(ctx context.Context, db *pgx.Conn, results []interleave.ActorResult) error {
	if results[1].Err == nil && fmt.Sprint(results[1].Value) != "200" {
		return fmt.Errorf("the audit saw a total of %v; want 200", results[1].Value)
	}
	var a, b int
	if err := db.QueryRow(ctx, "SELECT (SELECT balance FROM accounts WHERE id = 1), (SELECT balance FROM accounts WHERE id = 2)").Scan(&a, &b); err != nil {
		return err
	}
	want := [2]int{70, 130}
	if results[0].Err != nil {
		want = [2]int{100, 100}
	}
	if [2]int{a, b} != want {
		return fmt.Errorf("the transfer of 30 reported %s and the balances are %d and %d; want %d and %d", outcome(results[0].Err), a, b, want[0], want[1])
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

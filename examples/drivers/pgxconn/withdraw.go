// Package pgxconn is the pgx.Conn example with an explicit transaction
// (conn.Begin, tx.Commit): an overdraft by lost update. Two requests withdraw
// from the same account, each in a READ COMMITTED transaction: read the
// balance, check in Go that it covers the amount, write the new balance. When
// both read before either writes, both withdrawals are paid out and the
// second UPDATE overwrites the first (a lost update): the bank paid more than
// the account held.
//
// The repair reads the balance with SELECT ... FOR UPDATE inside the same
// transaction: the second request's read waits on the first request's row
// lock (the scheduler records the wait) and, once the first commits, sees the
// reduced balance and declines.
package pgxconn

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
)

// Opening is the account's balance before the requests run.
const Opening = 100

const (
	readBalance       = "SELECT balance FROM accounts WHERE id = $1"
	readBalanceLocked = "SELECT balance FROM accounts WHERE id = $1 FOR UPDATE"
)

// Withdraw is the application code: in one transaction, read the balance,
// check it covers amount, write the new balance. It reports whether the
// money was paid out. With lock set the read is SELECT ... FOR UPDATE.
func Withdraw(ctx context.Context, conn *pgx.Conn, account, amount int, lock bool) (bool, error) {
	tx, err := conn.Begin(ctx) // the server default: READ COMMITTED
	if err != nil {
		return false, err
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a no-op after Commit

	read := readBalance
	if lock {
		read = readBalanceLocked
	}
	var balance int
	if err := tx.QueryRow(ctx, read, account).Scan(&balance); err != nil {
		return false, err
	}
	if balance < amount {
		return false, tx.Commit(ctx) // declined: nothing was written
	}
	if _, err := tx.Exec(ctx, "UPDATE accounts SET balance = $2 WHERE id = $1", account, balance-amount); err != nil {
		return false, err
	}
	if err := tx.Commit(ctx); err != nil {
		return false, err
	}
	return true, nil
}

// Payout is what an actor returns: the amount it asked for and whether it
// was paid.
type Payout struct {
	Amount int  `json:"amount"`
	Paid   bool `json:"paid"`
}

// Scenario: alice withdraws 70 and bob 60 from an account holding 100; at
// most one of them can be paid, and the balance must be what the payouts
// left.
func Scenario(fixed bool) interleave.Scenario {
	name := "pgxconn-overdraft"
	if fixed {
		name = "pgxconn-overdraft-fixed"
	}
	withdraw := func(amount int) func(ctx context.Context, connString string) (any, error) {
		return func(ctx context.Context, connString string) (any, error) {
			conn, err := pgx.Connect(ctx, connString)
			if err != nil {
				return nil, err
			}
			defer conn.Close(context.Background())
			paid, err := Withdraw(ctx, conn, 1, amount, fixed)
			return Payout{Amount: amount, Paid: paid}, err
		}
	}
	return interleave.Scenario{
		Name: name,
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, fmt.Sprintf(`CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL);
				INSERT INTO accounts VALUES (1, %d)`, Opening))
			return err
		},
		Actors: []interleave.Actor{{Name: "alice", Run: withdraw(70)}, {Name: "bob", Run: withdraw(60)}},
		Invariant: func(ctx context.Context, db *pgx.Conn, results []interleave.ActorResult) error {
			var balance int
			if err := db.QueryRow(ctx, "SELECT balance FROM accounts WHERE id = 1").Scan(&balance); err != nil {
				return err
			}
			paid := 0
			for _, r := range results {
				p, ok := r.Value.(Payout)
				if !ok {
					return errors.New("an actor returned no payout")
				}
				if p.Paid {
					paid += p.Amount
				}
			}
			if paid > Opening || balance != Opening-paid {
				return fmt.Errorf("overdraft: paid out %d from an account that held %d; the balance is now %d", paid, Opening, balance)
			}
			return nil
		},
	}
}

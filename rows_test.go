package interleave_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/internal/testkit/fixture"
)

// TestTransactionsOnDifferentRowsAreOneOrder: three transactions that each
// update their own row of one table, by primary key through a bound
// parameter (pgx, binary int4), explore one order at READ COMMITTED: every
// order is the same class. At REPEATABLE READ too: the first statement
// takes the snapshot, which depends only on commits that wrote what its
// transaction touches (search.Event.SnapshotOf; 19 orders before it). At
// SERIALIZABLE (whose predicate locks can cover pages) whole tables are
// compared, so more orders run.
func TestTransactionsOnDifferentRowsAreOneOrder(t *testing.T) {
	for _, level := range []string{"read committed", "repeatable read", "serializable"} {
		t.Run(level, func(t *testing.T) {
			deposit := func(id int) interleave.Actor {
				return interleave.Actor{Name: fmt.Sprintf("a%d", id), Run: func(ctx context.Context, cs string) (any, error) {
					c, err := pgx.Connect(ctx, cs)
					if err != nil {
						return nil, err
					}
					defer c.Close(ctx)
					tx, err := c.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.TxIsoLevel(level)})
					if err != nil {
						return nil, err
					}
					if _, err := tx.Exec(ctx, "UPDATE acct SET bal = bal + 1 WHERE id = $1", id); err != nil {
						return nil, err
					}
					return nil, tx.Commit(ctx)
				}}
			}
			sc := interleave.Scenario{
				Name:   "rows",
				Setup:  fixture.Exec("CREATE TABLE acct (id int PRIMARY KEY, bal int NOT NULL); INSERT INTO acct VALUES (1, 0), (2, 0), (3, 0);"),
				Actors: []interleave.Actor{deposit(1), deposit(2), deposit(3)},
				Invariant: func(ctx context.Context, db *pgx.Conn, _ []interleave.ActorResult) error {
					var n int
					if err := db.QueryRow(ctx, "SELECT sum(bal) FROM acct").Scan(&n); err != nil {
						return err
					}
					if n != 3 {
						return fmt.Errorf("sum %d, want 3", n)
					}
					return nil
				},
			}
			o := opts()
			o.Search.Workers = 1
			res, err := interleave.Explore(fixture.Context(t), sc, o)
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != interleave.OutcomePass || !res.Summary.Exhausted() {
				t.Fatalf("outcome %s, exhausted %v: %s", res.Outcome, res.Summary.Exhausted(), res.Message)
			}
			got := res.Summary.Attempted
			if level == "serializable" {
				if got < 2 {
					t.Fatalf("%s explored %d orders: its snapshots or predicate locks were taken for independent", level, got)
				}
			} else if got != 1 {
				t.Fatalf("explored %d orders, want 1", got)
			}
			t.Logf("%s: %d orders", level, got)
		})
	}
}

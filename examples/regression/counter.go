// Package regression shows the go test workflow: a race found by
// interleavetest.Explore is saved under testdata/interleave/ and kept as a
// regression test with interleavetest.Replay.
//
// testdata/interleave/counter.json was recorded from the first version of
// Increment, which read the counter and wrote back n+1 (a lost update). The
// repaired Increment below does the arithmetic in the UPDATE; the replay
// follows the recorded order against it and passes.
package regression

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
)

// Increment adds one to the counter.
func Increment(ctx context.Context, connString string) (any, error) {
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT n FROM counter WHERE id = 1").Scan(&n); err != nil {
		return nil, err
	}
	if err := conn.QueryRow(ctx, "UPDATE counter SET n = n + 1 WHERE id = 1 RETURNING n").Scan(&n); err != nil {
		return nil, err
	}
	return n, nil
}

// Scenario is two concurrent increments that must both count.
func Scenario() interleave.Scenario {
	return interleave.Scenario{
		Name: "counter",
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, "CREATE TABLE counter (id int PRIMARY KEY, n int NOT NULL); INSERT INTO counter VALUES (1, 0)")
			return err
		},
		Actors: []interleave.Actor{{Name: "alice", Run: Increment}, {Name: "bob", Run: Increment}},
		Invariant: func(ctx context.Context, db *pgx.Conn, _ []interleave.ActorResult) error {
			var n int
			if err := db.QueryRow(ctx, "SELECT n FROM counter WHERE id = 1").Scan(&n); err != nil {
				return err
			}
			if n != 2 {
				return fmt.Errorf("Both increments must be retained: got %d, want 2", n)
			}
			return nil
		},
	}
}

// Command slow is a scenario program for tests that need a long search: three
// actors with four units each have 34,650 orders. It never violates. When
// $SLOW_RUNS names a file, every actor run appends a line to it (whether or
// not its SQL succeeds), so that a test can wait until the search is well
// under way.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
)

func worker(ctx context.Context, cs string) (any, error) {
	if err := countRun(); err != nil {
		return nil, err
	}
	c, err := pgx.Connect(ctx, cs)
	if err != nil {
		return nil, err
	}
	defer c.Close(ctx)
	for i := 0; i < 4; i++ {
		if _, err := c.Exec(ctx, "UPDATE t SET n = n + 1 WHERE id = 1"); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

func main() {
	interleave.Main(interleave.Scenario{
		Name: "slow",
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, "CREATE TABLE t (id int PRIMARY KEY, n int); INSERT INTO t VALUES (1, 0)")
			return err
		},
		Actors: []interleave.Actor{{Name: "a", Run: worker}, {Name: "b", Run: worker}, {Name: "c", Run: worker}},
		Invariant: func(ctx context.Context, db *pgx.Conn, _ []interleave.ActorResult) error {
			var n int
			if err := db.QueryRow(ctx, "SELECT n FROM t").Scan(&n); err != nil {
				return err
			}
			if n != 12 {
				return fmt.Errorf("n = %d, want 12", n)
			}
			return nil
		},
	})
}

// countRun appends a line to $SLOW_RUNS, if set.
func countRun() error {
	path := os.Getenv("SLOW_RUNS")
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString("run\n"); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

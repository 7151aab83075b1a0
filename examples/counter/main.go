// Command counter is the lost-update race: two actors each read a counter,
// add one in Go, and write the result back. When both read before either
// writes, one increment disappears.
//
//	go run ./cmd/interleave run ./examples/counter --out failure.json
package main

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
)

// increment is the application code under test: read, compute, write.
func increment(ctx context.Context, connString string) (any, error) {
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT n FROM counter WHERE id = 1").Scan(&n); err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "UPDATE counter SET n = $1 WHERE id = 1", n+1); err != nil {
		return nil, err
	}
	return n + 1, nil
}

func main() {
	interleave.Main(interleave.Scenario{
		Name: "counter",
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, `CREATE TABLE counter (id int PRIMARY KEY, n int NOT NULL);
				INSERT INTO counter VALUES (1, 0)`)
			return err
		},
		Actors: []interleave.Actor{
			{Name: "alice", Run: increment},
			{Name: "bob", Run: increment},
		},
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
	})
}

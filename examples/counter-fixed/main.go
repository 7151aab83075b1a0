// Command counter-fixed is the repaired counter: the arithmetic happens in
// the UPDATE, so PostgreSQL's row lock serialises the two increments in
// every order.
//
//	go run ./cmd/interleave run ./examples/counter-fixed
package main

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
)

func increment(ctx context.Context, connString string) (any, error) {
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	var before, after int
	if err := conn.QueryRow(ctx, "SELECT n FROM counter WHERE id = 1").Scan(&before); err != nil {
		return nil, err
	}
	if err := conn.QueryRow(ctx, "UPDATE counter SET n = n + 1 WHERE id = 1 RETURNING n").Scan(&after); err != nil {
		return nil, err
	}
	return after, nil
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

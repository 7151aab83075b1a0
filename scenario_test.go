package interleave

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// counterScenario is the lost-update race used across this package's tests:
// each actor reads the counter, then writes back what it read plus one.
func counterScenario(fixed bool) Scenario {
	inc := func(ctx context.Context, cs string) (any, error) {
		c, err := pgx.Connect(ctx, cs)
		if err != nil {
			return nil, err
		}
		defer c.Close(ctx)
		var n int
		if err := c.QueryRow(ctx, "SELECT n FROM counter WHERE id = 1").Scan(&n); err != nil {
			return nil, err
		}
		if fixed {
			err = c.QueryRow(ctx, "UPDATE counter SET n = n + 1 WHERE id = 1 RETURNING n").Scan(&n)
		} else {
			_, err = c.Exec(ctx, "UPDATE counter SET n = $1 WHERE id = 1", n+1)
		}
		return n, err
	}
	name := "counter"
	if fixed {
		name = "counter-fixed"
	}
	return Scenario{
		Name: name,
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, "CREATE TABLE counter (id int PRIMARY KEY, n int NOT NULL); INSERT INTO counter VALUES (1, 0)")
			return err
		},
		Actors: []Actor{{Name: "alice", Run: inc}, {Name: "bob", Run: inc}},
		Invariant: func(ctx context.Context, db *pgx.Conn, _ []ActorResult) error {
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

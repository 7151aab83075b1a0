package bench

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/pgserver"
)

// CounterSetup creates the counter the throughput benchmarks increment.
const CounterSetup = "CREATE TABLE counter (id int PRIMARY KEY, n int NOT NULL); INSERT INTO counter VALUES (1, 0)"

// increment reads the counter, then increments it in one statement: two
// units, and no lost update in any order.
func increment(ctx context.Context, cs string) (any, error) {
	c, err := pgx.Connect(ctx, cs)
	if err != nil {
		return nil, err
	}
	defer c.Close(ctx)
	var n int
	if err := c.QueryRow(ctx, "SELECT n FROM counter WHERE id = 1").Scan(&n); err != nil {
		return nil, err
	}
	_, err = c.Exec(ctx, "UPDATE counter SET n = n + 1 WHERE id = 1")
	return n, err
}

// Counter is the repaired counter with the given number of actors, the
// scenario of the throughput benchmarks (2 actors: 6 orders; 3: 90).
func Counter(actors int) interleave.Scenario {
	sc := interleave.Scenario{
		Name: fmt.Sprintf("counter%d", actors),
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, CounterSetup)
			return err
		},
		Invariant: func(ctx context.Context, db *pgx.Conn, _ []interleave.ActorResult) error {
			var n int
			if err := db.QueryRow(ctx, "SELECT n FROM counter WHERE id = 1").Scan(&n); err != nil {
				return err
			}
			if n != actors {
				return fmt.Errorf("n = %d, want %d", n, actors)
			}
			return nil
		},
	}
	for i := 0; i < actors; i++ {
		sc.Actors = append(sc.Actors, interleave.Actor{Name: string(rune('a' + i)), Run: increment})
	}
	return sc
}

// CounterFloor is the physical floor of one Counter attempt: the same reset,
// setup, connections (one per actor, to connString) and SQL, run serially
// on direct connections, then the invariant's query. control is connected
// to db, whose pristine state is p.
func CounterFloor(ctx context.Context, control *pgx.Conn, connString, db string, p *pgserver.Pristine, actors int) error {
	if err := pgserver.ResetDatabase(ctx, control, db, p); err != nil {
		return err
	}
	if _, err := control.Exec(ctx, CounterSetup); err != nil {
		return err
	}
	for i := 0; i < actors; i++ {
		if _, err := increment(ctx, connString); err != nil {
			return err
		}
	}
	var n int
	return control.QueryRow(ctx, "SELECT n FROM counter WHERE id = 1").Scan(&n)
}

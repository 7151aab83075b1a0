package bench

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/internal/testkit/fixture"
	"github.com/pginterleave/interleave/pgserver"
)

// Counter is the repaired counter (internal/testkit/fixture) with the given number
// of actors, named a, b, c, ...: the scenario of the throughput benchmarks
// (2 actors: 6 orders; 3: 90).
func Counter(actors int) interleave.Scenario {
	sc := fixture.Counter(true)
	sc.Name = fmt.Sprintf("counter%d", actors)
	sc.Invariant = fixture.CounterIs(actors)
	sc.Actors = nil
	for i := 0; i < actors; i++ {
		sc.Actors = append(sc.Actors, interleave.Actor{Name: string(rune('a' + i)), Run: fixture.Increment(true)})
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
	if _, err := control.Exec(ctx, fixture.CounterSetup); err != nil {
		return err
	}
	increment := fixture.Increment(true)
	for i := 0; i < actors; i++ {
		if _, err := increment(ctx, connString); err != nil {
			return err
		}
	}
	var n int
	return control.QueryRow(ctx, "SELECT n FROM counter WHERE id = 1").Scan(&n)
}

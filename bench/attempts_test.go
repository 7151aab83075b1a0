package bench

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/pgserver"
)

const counterSetup = "CREATE TABLE counter (id int PRIMARY KEY, n int NOT NULL); INSERT INTO counter VALUES (1, 0)"

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

func counterScenario(actors int) interleave.Scenario {
	sc := interleave.Scenario{
		Name: "counter",
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, counterSetup)
			return err
		},
		Invariant: func(ctx context.Context, db *pgx.Conn, _ []interleave.ActorResult) error {
			var n int
			if err := db.QueryRow(ctx, "SELECT n FROM counter WHERE id = 1").Scan(&n); err != nil {
				return err
			}
			if n != actors {
				return fmt.Errorf("got %d, want %d", n, actors)
			}
			return nil
		},
	}
	for i := 0; i < actors; i++ {
		sc.Actors = append(sc.Actors, interleave.Actor{Name: fmt.Sprintf("a%d", i), Run: increment})
	}
	return sc
}

// floorAttempt is the physical floor of one counter attempt: the same reset,
// setup, connections and SQL, run serially on direct connections.
func floorAttempt(ctx context.Context, control *pgx.Conn, db string, p *pgserver.Pristine, actors int) error {
	if err := pgserver.ResetDatabase(ctx, control, db, p); err != nil {
		return err
	}
	if _, err := control.Exec(ctx, counterSetup); err != nil {
		return err
	}
	for i := 0; i < actors; i++ {
		if _, err := increment(ctx, server.ConnString(db)); err != nil {
			return err
		}
	}
	var n int
	return control.QueryRow(ctx, "SELECT n FROM counter WHERE id = 1").Scan(&n)
}

// BenchmarkCounterAttempts reports attempts per second of a search on the
// repaired counter next to the physical floor measured in the same run, and
// their ratio (attempt time / floor time; 1.0 would be free scheduling).
// Two actors have only 6 orders, too few to measure a rate, so that search
// draws 200 random orders; three actors are searched exhaustively (90
// orders). Workers: the default (one per CPU).
func BenchmarkCounterAttempts(b *testing.B) {
	for _, actors := range []int{2, 3} {
		name := fmt.Sprintf("actors=%d/fifo-exhaustive", actors)
		opts := interleave.Options{Server: server, Stdout: io.Discard, Stderr: io.Discard}
		if actors == 2 {
			name = "actors=2/random-200"
			opts.Strategy, opts.Seed, opts.MaxAttempts = "random", 1, 200
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			db, err := server.CreateDatabase(ctx)
			if err != nil {
				b.Fatal(err)
			}
			defer server.DropDatabase(ctx, db)
			control, err := pgx.Connect(ctx, server.ConnString(db))
			if err != nil {
				b.Fatal(err)
			}
			defer control.Close(ctx)
			pristine, err := pgserver.Snapshot(ctx, control)
			if err != nil {
				b.Fatal(err)
			}
			sc := counterScenario(actors)
			var searchTime, floorTime time.Duration
			attempts := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := interleave.Explore(ctx, sc, opts)
				// The random search ends at its budget (inconclusive: not
				// every order was explored) with every attempt completed.
				if err != nil || res.Summary.Completed != res.Summary.Attempted || res.Summary.Failures > 0 {
					b.Fatalf("search: %v %v", err, res)
				}
				searchTime += res.Summary.Elapsed
				attempts += res.Summary.Attempted
				start := time.Now()
				for j := 0; j < res.Summary.Attempted; j++ {
					if err := floorAttempt(ctx, control, db, pristine, actors); err != nil {
						b.Fatal(err)
					}
				}
				floorTime += time.Since(start)
			}
			b.StopTimer()
			b.ReportMetric(float64(attempts)/searchTime.Seconds(), "attempts/s")
			b.ReportMetric(float64(attempts)/floorTime.Seconds(), "floor-attempts/s")
			b.ReportMetric(float64(searchTime)/float64(floorTime), "attempt/floor")
		})
	}
}

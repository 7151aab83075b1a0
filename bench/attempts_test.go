package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/pgserver"
)

// BenchmarkCounterAttempts reports attempts per second of a search on the
// repaired counter next to the physical floor measured in the same run, and
// their ratio (attempt time / floor time; 1.0 would be free scheduling).
// Two actors have only 6 orders, too few to measure a rate, so that search
// draws 200 random orders; three actors are searched exhaustively (90
// orders). Workers: the default (one per CPU). Each iteration also runs the
// same search with FreshSessions (a new backend for every connection),
// reported as fresh-attempts/s.
func BenchmarkCounterAttempts(b *testing.B) {
	for _, actors := range []int{2, 3} {
		name := fmt.Sprintf("actors=%d/fifo-exhaustive", actors)
		opts := interleave.Options{Server: interleave.ServerOptions{Use: server}}
		if actors == 2 {
			name = "actors=2/random-200"
			opts.Search.Strategy, opts.Search.Seed, opts.Search.MaxAttempts = "random", 1, 200
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
			sc := Counter(actors)
			var searchTime, floorTime, freshTime time.Duration
			attempts, freshAttempts := 0, 0
			fresh := opts
			fresh.Proxy.FreshSessions = true
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
				fres, err := interleave.Explore(ctx, sc, fresh)
				if err != nil || fres.Summary.Completed != fres.Summary.Attempted || fres.Summary.Failures > 0 {
					b.Fatalf("search with fresh sessions: %v %v", err, fres)
				}
				freshTime += fres.Summary.Elapsed
				freshAttempts += fres.Summary.Attempted
				start := time.Now()
				for j := 0; j < res.Summary.Attempted; j++ {
					if err := CounterFloor(ctx, control, server.ConnString(db), db, pristine, actors); err != nil {
						b.Fatal(err)
					}
				}
				floorTime += time.Since(start)
			}
			b.StopTimer()
			b.ReportMetric(float64(attempts)/searchTime.Seconds(), "attempts/s")
			b.ReportMetric(float64(attempts)/floorTime.Seconds(), "floor-attempts/s")
			b.ReportMetric(float64(searchTime)/float64(floorTime), "attempt/floor")
			b.ReportMetric(float64(freshAttempts)/freshTime.Seconds(), "fresh-attempts/s")
		})
	}
}

// BenchmarkDeadlockChoice reports what a deadlock costs an attempt: the
// default order of two transfers that lock two rows in opposite orders
// (a waits for b, b closes the cycle; PostgreSQL aborts a, first in the
// default victim order) against the same transfers on four different rows,
// which never wait, alternated in one run. added-ms/attempt is the
// difference of their mean attempt times: the deadlock timer of the victim
// and the abort.
func BenchmarkDeadlockChoice(b *testing.B) {
	ctx := context.Background()
	transfer := func(first, second int) func(context.Context, string) (any, error) {
		return func(ctx context.Context, cs string) (any, error) {
			c, err := pgx.Connect(ctx, cs)
			if err != nil {
				return nil, err
			}
			defer c.Close(context.Background())
			for _, q := range []string{"BEGIN", fmt.Sprintf("UPDATE accounts SET bal = bal - 1 WHERE id = %d", first),
				fmt.Sprintf("UPDATE accounts SET bal = bal + 1 WHERE id = %d", second), "COMMIT"} {
				if _, err := c.Exec(ctx, q); err != nil {
					return nil, err
				}
			}
			return nil, nil
		}
	}
	aborted := 0 // actors the last attempt's invariant saw fail
	scenario := func(name string, a1, a2, b1, b2 int) interleave.Scenario {
		return interleave.Scenario{Name: name, HandleActorErrors: true,
			Setup: func(ctx context.Context, db *pgx.Conn) error {
				_, err := db.Exec(ctx, "CREATE TABLE accounts (id int PRIMARY KEY, bal int NOT NULL); INSERT INTO accounts SELECT g, 0 FROM generate_series(1, 4) g")
				return err
			},
			Actors: []interleave.Actor{{Name: "a", Run: transfer(a1, a2)}, {Name: "b", Run: transfer(b1, b2)}},
			Invariant: func(_ context.Context, _ *pgx.Conn, rs []interleave.ActorResult) error {
				aborted = 0
				for _, r := range rs {
					if r.Err != nil {
						aborted++
					}
				}
				return nil
			},
		}
	}
	deadlock, plain := scenario("deadlock", 1, 2, 2, 1), scenario("plain", 1, 2, 3, 4)
	opts := interleave.Options{Server: interleave.ServerOptions{Use: server}}
	var deadlockTime, plainTime time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, sc := range []interleave.Scenario{deadlock, plain} {
			start := time.Now()
			res, err := interleave.RunOnce(ctx, sc, opts)
			elapsed := time.Since(start)
			if err != nil || res.Outcome != interleave.OutcomePass {
				b.Fatalf("%s: %v %v", sc.Name, err, res)
			}
			if want := map[bool]int{true: 1, false: 0}[sc.Name == "deadlock"]; aborted != want {
				b.Fatalf("%s: %d actors failed, want %d", sc.Name, aborted, want)
			}
			if sc.Name == "deadlock" {
				deadlockTime += elapsed
			} else {
				plainTime += elapsed
			}
		}
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / float64(b.N) }
	b.ReportMetric(ms(deadlockTime), "deadlock-ms/attempt")
	b.ReportMetric(ms(plainTime), "plain-ms/attempt")
	b.ReportMetric(ms(deadlockTime-plainTime), "added-ms/attempt")
}

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
// same search with KeepSessions (an actor's session reset and handed to
// its next attempt), reported as kept-attempts/s.
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
			var searchTime, floorTime, keptTime time.Duration
			attempts, keptAttempts := 0, 0
			kept := opts
			kept.Proxy.KeepSessions = true
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
				kres, err := interleave.Explore(ctx, sc, kept)
				if err != nil || kres.Summary.Completed != kres.Summary.Attempted || kres.Summary.Failures > 0 {
					b.Fatalf("search with kept sessions: %v %v", err, kres)
				}
				keptTime += kres.Summary.Elapsed
				keptAttempts += kres.Summary.Attempted
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
			b.ReportMetric(float64(keptAttempts)/keptTime.Seconds(), "kept-attempts/s")
		})
	}
}

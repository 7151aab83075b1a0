package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/internal/testkit/jsseed"
	scenariofile "github.com/pginterleave/interleave/scenario"
)

// seedCounterGo is examples/counter written against the seed example's
// table, so that it sends the same statements as the seed's counter.mjs: a
// pgx connection per actor, read, add one in Go, write back.
func seedCounterGo() interleave.Scenario {
	increment := func(ctx context.Context, cs string) (any, error) {
		c, err := pgx.Connect(ctx, cs)
		if err != nil {
			return nil, err
		}
		defer c.Close(ctx)
		var v int
		if err := c.QueryRow(ctx, "SELECT value FROM counters WHERE id = $1", 1).Scan(&v); err != nil {
			return nil, err
		}
		_, err = c.Exec(ctx, "UPDATE counters SET value = $1 WHERE id = $2", v+1, 1)
		return map[string]int{"value": v + 1}, err
	}
	return interleave.Scenario{
		Name: "application-counter",
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, "CREATE TABLE counters (id int PRIMARY KEY, value int NOT NULL); INSERT INTO counters VALUES (1, 0)")
			return err
		},
		Actors: []interleave.Actor{{Name: "alice", Run: increment}, {Name: "bob", Run: increment}},
		Invariant: func(ctx context.Context, db *pgx.Conn, _ []interleave.ActorResult) error {
			var v int
			if err := db.QueryRow(ctx, "SELECT value FROM counters WHERE id = 1").Scan(&v); err != nil {
				return err
			}
			if v != 2 {
				return fmt.Errorf("Both increments must be retained: got %d, want 2", v)
			}
			return nil
		},
	}
}

// BenchmarkJSCounterAttempts reports the attempt rate of the original
// tool's example, scenario.mjs unchanged (node-postgres, one long-lived
// Node process per worker), next to the same counter in Go measured in the
// same iteration. Both draw 200 random orders with --keep-going (the lost
// update fails about half of them; every attempt is judged), so both run
// the same number of attempts of the same statements.
//
//	go test -run '^$' -bench JSCounterAttempts -benchtime 3x ./bench
func BenchmarkJSCounterAttempts(b *testing.B) {
	dir := jsseed.Project(b, true, nil)
	start := time.Now()
	l, err := scenariofile.LoadJS(filepath.Join(dir, "scenario.mjs"))
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	b.Logf("LoadJS (first Node process, the module loaded): %v", time.Since(start).Round(time.Millisecond))
	goCounter := seedCounterGo()
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			opts := interleave.Options{Server: interleave.ServerOptions{Use: server}, Search: interleave.SearchOptions{Strategy: "random", Seed: 1, MaxAttempts: 200, KeepGoing: true, Workers: workers}}
			elapsed := map[string]time.Duration{}
			attempts := map[string]int{}
			for i := 0; i < b.N; i++ {
				for _, c := range []struct {
					name string
					sc   interleave.Scenario
				}{{"go", goCounter}, {"mjs", l.Scenario}} {
					res, err := interleave.Explore(context.Background(), c.sc, opts)
					if err != nil || res.Summary.Completed != res.Summary.Attempted || res.Summary.Failures == 0 {
						b.Fatalf("%s search: %v %+v", c.name, err, res)
					}
					elapsed[c.name] += res.Summary.Elapsed
					attempts[c.name] += res.Summary.Attempted
				}
			}
			rate := func(n string) float64 { return float64(attempts[n]) / elapsed[n].Seconds() }
			b.ReportMetric(rate("go"), "go-attempts/s")
			b.ReportMetric(rate("mjs"), "mjs-attempts/s")
			b.ReportMetric(rate("go")/rate("mjs"), "mjs-time/go-time")
		})
	}
}

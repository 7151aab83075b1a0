package explain_test

import (
	"context"
	"testing"
	"time"

	"github.com/pginterleave/interleave/bench"
	"github.com/pginterleave/interleave/engine"
	"github.com/pginterleave/interleave/explain"
)

// TestRaceSuite explains the failure the search finds in each race of the
// bench's race suite (scenarios written before explain existed) and checks
// what it says against what each race is.
func TestRaceSuite(t *testing.T) {
	want := map[string]struct {
		name, fix string
		pair      bool
	}{
		// Read, then write back, each in its own autocommit statement: no
		// transaction spans both, so no level helps; a lock or one
		// atomic statement does.
		"lost-update":       {"", explain.FixLocking, true},
		"check-then-insert": {"", explain.FixLocking, true},
		"oversell":          {"", explain.FixLocking, true},
		// Cache invalidation ordered across autocommit statements.
		"stale-cache-3-actors": {"", explain.FixLocking, true},
		// Two doctors at REPEATABLE READ (named in the code's BEGIN).
		"write-skew": {explain.WriteSkew, explain.FixLocking, true},
		// Read-modify-write inside one READ COMMITTED transaction.
		"double-claim":         {explain.LostUpdate, explain.FixRepeatableRead, true},
		"checkout-3-customers": {explain.LostUpdate, explain.FixRepeatableRead, true},
		// Three increments: no single reversal saves all three.
		"counter-3-actors": {explain.LostUpdate, explain.FixRepeatableRead, false},
		// PostgreSQL aborts one transfer: the fix is a retry or one lock order.
		"deadlock": {"", explain.FixRetry, false},
		// Found with overlapping pairs, which explain does not replay.
		"insert-where-not-exists":      {"", explain.FixUnknown, false},
		"insert-where-not-exists-slow": {"", explain.FixUnknown, false},
	}
	for _, r := range bench.Races() {
		r := r
		w, ok := want[r.Name]
		if !ok {
			t.Errorf("race %s has no expectation here: add one", r.Name)
			continue
		}
		t.Run(r.Name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			o := engine.Options{Server: engine.ServerOptions{Use: server}}
			o.Search.Workers = 1
			if r.Overlap {
				o.Search.Overlap = "pairs"
				// PostgreSQL interleaves a pair its own way: 30 runs,
				// not the default 10, as bench's TestRaceSuite.
				o.Search.PairRepeats = 30
			}
			res, err := engine.Explore(ctx, r.Bug, o)
			if err != nil || !res.Outcome.Failed() {
				t.Fatalf("search: %v %v", err, res)
			}
			x, err := engine.Explain(ctx, r.Bug, res.Artifact, engine.ExplainOptions{Options: o})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s (%s):\n%s", r.Name, r.Story, x.Text())
			// The search named it the same way when it saved the failure.
			if rec := res.Artifact.Explanation; rec == nil || rec.Anomaly != x.Anomaly || len(rec.Cycle) != len(x.Cycle) {
				t.Errorf("the search's artifact names %+v (%q); explain %+v", rec, res.AnomalyError, x.Anomaly)
			}
			found := x.CriticalPair != nil && x.CriticalPair.Found
			if x.Anomaly.Name != w.name || x.Fix == nil || x.Fix.Class != w.fix || found != w.pair {
				t.Errorf("named %q, fix %+v, critical pair found %v; want %q, %s, %v", x.Anomaly.Name, x.Fix, found, w.name, w.fix, w.pair)
			}
		})
	}
}

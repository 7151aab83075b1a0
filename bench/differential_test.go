package bench

import (
	"context"
	"flag"
	"os"
	"testing"
	"time"

	"github.com/pginterleave/interleave"
)

var large = flag.Bool("large", false, "also run the differential cases that take thousands of orders without reduction")

var sourceSets = flag.Bool("source-sets", false, "also run each reduced search without sleep sets (source sets alone) and report its orders")

// TestReductionLosesNoBehaviour explores every case fully with and without
// partial-order reduction and requires the same set of behaviours (each
// actor's results and errors, and the database at the end).
func TestReductionLosesNoBehaviour(t *testing.T) {
	for _, c := range Cases() {
		if c.Large && !*large {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
			defer cancel()
			d, err := RunDifferential(ctx, c, interleave.Options{Server: interleave.ServerOptions{Use: server}, Search: interleave.SearchOptions{Workers: 2}})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d behaviours, %d classes; %d orders without reduction (%v), %d with (%v) in %d classes; %d lock corrections", d.Behaviours, d.Classes, d.Full, d.FullTime.Round(time.Millisecond), d.Reduced, d.ReduceTime.Round(time.Millisecond), d.ReducedClasses, d.Corrections)
			if *sourceSets {
				o := interleave.Options{Server: interleave.ServerOptions{Use: server}, Search: interleave.SearchOptions{Workers: 2, SourceSetsOnly: true}}
				n, err := ReducedOrders(ctx, c, o)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("without sleep sets: %d orders", n)
			}
			for _, b := range d.Lost {
				t.Errorf("lost by the reduction: %s", b)
			}
			for _, b := range d.Extra {
				t.Errorf("seen only with the reduction (the scenario is not deterministic?): %s", b)
			}
			if d.Reduced > d.Full {
				t.Errorf("the reduction ran %d orders, more than the %d of the full search", d.Reduced, d.Full)
			}
		})
	}
}

func TestDebugDifferential(t *testing.T) {
	name := os.Getenv("DEBUG_CASE")
	if name == "" {
		t.Skip("DEBUG_CASE names a case")
	}
	for _, c := range Cases() {
		if c.Name != name {
			continue
		}
		for _, red := range []string{"none", "por"} {
			var rec Recorder
			o := interleave.Options{Server: interleave.ServerOptions{Use: server}, Search: interleave.SearchOptions{Workers: 1}}
			o.Search.Reduction.Set(red)
			res, err := interleave.Explore(context.Background(), c.Scenario(&rec), o)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %s %d attempts, diverged %d inconclusive %d (%s)", red, res.Outcome, res.Summary.Attempted, res.Summary.Diverged, res.Summary.Inconclusive, res.Summary.FirstDivergence)
			for b, n := range rec.Seen {
				t.Logf("  %d × %s", n, b)
			}
		}
	}
}

package bench

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/pginterleave/interleave"
)

var measureCheck = flag.String("measure-check", "", "measure the reduction check against a test-only broken reduction: blind (the classifier names no relation) or broken (every pair independent); writes a table to -measure-out")
var measureOut = flag.String("measure-out", "", "file for -measure-check's table (default stdout via the test log)")

// TestMeasureReductionCheck measures, for every differential case, what a
// broken reduction loses and how often the default check (8 orders) finds
// it, over five seeds.
// It runs only with -measure-check (a measurement for docs/performance.md,
// not a pass or fail).
func TestMeasureReductionCheck(t *testing.T) {
	switch *measureCheck {
	case "":
		t.Skip("a measurement: run with -measure-check blind|broken")
	case "blind":
		t.Setenv("INTERLEAVE_TEST_BLIND_CLASSIFIER", "1")
	case "broken":
		t.Setenv("INTERLEAVE_TEST_BROKEN_DEPENDENCE", "1")
	default:
		t.Fatalf("-measure-check %q: blind or broken", *measureCheck)
	}
	out := "| case | lost without the check | orders the check ran | seeds whose check caught it |\n|---|---|---|---|\n"
	for _, c := range Cases() {
		if c.Large && !*large {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
		var full, red Recorder
		o := interleave.Options{Server: interleave.ServerOptions{Use: server}, Search: interleave.SearchOptions{Workers: 2, Reduction: "none"}}
		if _, err := interleave.Explore(ctx, c.Scenario(&full), o); err != nil {
			t.Fatal(err)
		}
		o.Search.Reduction = ""
		o.Search.ReductionCheck = -1
		if _, err := interleave.Explore(ctx, c.Scenario(&red), o); err != nil {
			t.Fatal(err)
		}
		lost := 0
		for b := range full.Seen {
			if red.Seen[b] == 0 {
				lost++
			}
		}
		// The default check (8 orders: skipped ones and ones drawn at
		// random) under five seeds: how often it catches what was lost.
		caught, sampled := 0, 0
		for seed := int64(1); seed <= 5 && lost > 0; seed++ {
			var chk Recorder
			o.Search.ReductionCheck, o.Search.Seed = 0, seed
			res, err := interleave.Explore(ctx, c.Scenario(&chk), o)
			if err != nil {
				t.Fatal(err)
			}
			k := res.Summary.Check
			sampled = k.Sampled
			if res.Summary.CheckFailed || k.NewBehaviours > 0 {
				caught++
			}
		}
		cancel()
		line := fmt.Sprintf("| %s | %d of %d | %d | %d of 5 |\n", c.Name, lost, len(full.Seen), sampled, caught)
		if lost == 0 {
			line = fmt.Sprintf("| %s | 0 of %d | - | - |\n", c.Name, len(full.Seen))
		}
		t.Log(line)
		out += line
	}
	if *measureOut != "" {
		if err := os.WriteFile(*measureOut, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

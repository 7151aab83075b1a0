package bench

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"testing"
	"time"

	"github.com/pginterleave/interleave"
)

var measureCheck = flag.String("measure-check", "", "measure the reduction check against a test-only broken reduction: blind (the classifier names no relation) or broken (every pair independent); writes a table to -measure-out")
var measureOut = flag.String("measure-out", "", "file for -measure-check's table (default stdout via the test log)")

// TestMeasureReductionCheck measures, for every differential case, what
// share of the skipped orders a broken reduction would have hidden shows a
// new behaviour, and so how likely the default sample (8) is to miss it.
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
	out := fmt.Sprintf("| case | lost without the check | skipped orders | sampled (all) | new behaviours or failures | P(8 samples miss) |\n|---|---|---|---|---|---|\n")
	for _, c := range Cases() {
		if c.Large && !*large {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
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
		var chk Recorder
		o.Search.ReductionCheck = 100000
		res, err := interleave.Explore(ctx, c.Scenario(&chk), o)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		k := res.Summary.Check
		found := k.NewBehaviours
		if res.Summary.CheckFailed {
			found++
		}
		miss := 1.0
		if k.Sampled > 0 {
			// Drawing 8 of the S sampled without replacement misses all f
			// finds with probability C(S-f, 8) / C(S, 8).
			n := math.Min(8, float64(k.Sampled))
			for i := 0.0; i < n; i++ {
				miss *= math.Max(0, float64(k.Sampled-found)-i) / (float64(k.Sampled) - i)
			}
		}
		line := fmt.Sprintf("| %s | %d of %d | %d | %d | %d | %.2f |\n", c.Name, lost, len(full.Seen), k.Skipped, k.Sampled, found, miss)
		if lost == 0 {
			line = fmt.Sprintf("| %s | 0 of %d | %d | %d | %d | - |\n", c.Name, len(full.Seen), k.Skipped, k.Sampled, found)
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

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

var (
	shardAll = flag.Bool("shard-all", false, "TestShardsLoseNoBehaviour runs every case (with -large, the large ones too), not only CI's")
	shardGen = flag.Bool("shard-gen", false, "TestGeneratedShardsLoseNoBehaviour runs the generated scenarios -gen-from and -gen-count name")
)

// shardCases are the cases CI runs the shards' differential on, with the
// shard counts each is split into (each search costs about a second of
// set-up): row locks in 3 shards, a deadlock with its victims in 2, 3 and
// 4, SKIP LOCKED in 4. -shard-all runs every case in 2, 3 and 4 shards.
var shardCases = map[string][2]int{"for-update-2": {3, 3}, "deadlock": {2, 4}, "skip-locked-queue": {4, 4}}

// TestShardsLoseNoBehaviour explores each case with reduction whole and in
// shards (shardCases; 2, 3 and 4 with -shard-all): the shards together see exactly the whole search's
// behaviours, find every violation it finds, and `interleave merge` of
// their summaries gives its verdict.
func TestShardsLoseNoBehaviour(t *testing.T) {
	ran := 0
	for _, c := range Cases() {
		counts, ci := shardCases[c.Name]
		if !ci && !*shardAll || c.Large && !*large {
			continue
		}
		if *shardAll || !ci {
			counts = [2]int{2, 4}
		}
		ran++
		t.Run(c.Name, func(t *testing.T) { checkShards(t, c, "", counts[0], counts[1]) })
	}
	if ran < len(shardCases) {
		t.Fatalf("ran %d cases; the CI list names %d (a case renamed?)", ran, len(shardCases))
	}
}

// TestGeneratedShardsLoseNoBehaviour is the shards' differential on
// generated scenarios (a campaign, outside CI: -shard-gen with -gen-from,
// -gen-count and -gen-report).
func TestGeneratedShardsLoseNoBehaviour(t *testing.T) {
	if !*shardGen {
		t.Skip("-shard-gen runs this campaign")
	}
	for seed := *genFrom; seed < *genFrom+int64(*genCount); seed++ {
		c, _ := GenerateBounded(seed, *genBound)
		// One shard count per seed, 2, 3 and 4 in turn: a campaign of many
		// seeds covers each.
		n := 2 + int(seed%3)
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) { checkShards(t, c, fmt.Sprintf("seed=%d ", seed), n, n) })
	}
}

// checkShards runs the shards' differential of c for from to to shards.
func checkShards(t *testing.T, c Case, label string, from, to int) {
	opts := interleave.Options{Server: interleave.ServerOptions{Use: server}, Search: interleave.SearchOptions{Workers: 2}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	w, err := RunWhole(ctx, c, opts)
	if err != nil {
		t.Fatal(err)
	}
	for n := from; n <= to; n++ {
		d, err := RunShardDifferential(ctx, c, opts, w, n, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		total := 0
		for _, r := range d.Runs {
			total += r
		}
		line := fmt.Sprintf("%s%s: %d shards: whole %d orders, shards ran %v (%d in all); %d behaviours, %d violations; lost %d, extra %d, violations lost %d; verdict %d, merged %d",
			label, c.Name, n, d.Whole, d.Runs, total, d.Behaviours, d.Violations, len(d.Lost), len(d.Extra), len(d.LostViolations), d.WholeVerdict, d.Merged)
		t.Log(line)
		if *genReport != "" && label != "" {
			if f, err := os.OpenFile(*genReport, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
				fmt.Fprintln(f, line)
				f.Close()
			}
		}
		for _, b := range d.Lost {
			t.Errorf("%d shards: lost: %s", n, b)
		}
		for _, b := range d.Extra {
			t.Errorf("%d shards: seen only by a shard (the scenario is not deterministic?): %s", n, b)
		}
		for _, b := range d.LostViolations {
			t.Errorf("%d shards: no shard found the violation %s", n, b)
		}
		if d.Merged != d.WholeVerdict {
			t.Errorf("%d shards: merged verdict exit %d, the whole search's %d", n, d.Merged, d.WholeVerdict)
		}
		if t.Failed() && label != "" {
			t.Logf("case (for bench/cases.go):\n%s", GoSource(c))
		}
		if t.Failed() {
			return
		}
	}
}

// TestShardsPassTheReductionCheck: shards of a search that passes pass
// too, the reduction check on (its default): a shard samples only orders
// skipped in its own branches, whose equivalents it ran, so no behaviour
// another shard saw is taken for a lost one.
func TestShardsPassTheReductionCheck(t *testing.T) {
	for _, c := range Cases() {
		if c.Name != "for-update-3" {
			continue // its shards sample skipped orders (smaller cases' do not)
		}
		t.Run(c.Name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
			defer cancel()
			sampled := 0
			for k := 1; k <= 4; k++ {
				o := interleave.Options{Server: interleave.ServerOptions{Use: server}, Search: interleave.SearchOptions{Workers: 2, Shard: k, Shards: 4}}
				res, err := interleave.Explore(ctx, c.Scenario(&Recorder{}), o)
				if err != nil {
					t.Fatal(err)
				}
				if res.Outcome != interleave.OutcomePass {
					t.Errorf("shard %d/4: %s: %s", k, res.Outcome, res.Message)
				}
				sampled += res.Summary.Check.Sampled
			}
			if sampled == 0 {
				t.Errorf("the shards' checks sampled no order: nothing was checked")
			}
			t.Logf("%s: 4 shards passed, %d orders sampled by their checks", c.Name, sampled)
		})
	}
}

package bench

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pginterleave/interleave"
)

// TestWorkersAndShardsLoseNoBehaviour (review M, 5 December): the cases
// RM_CASES names (comma-separated; by default two of three and four
// actors) explored without reduction (Workers 2), then with reduction with
// Workers 1, 2, 3 and in 2 and 3 shards (Workers 2, union over shards);
// every behaviour of the unreduced search must be seen by each reduced
// configuration. RM_CONFIGS picks configs (w1,w2,w3,s2,s3,s4);
// RM_GEN_FROM and RM_GEN_COUNT take the generated seeds with three or more
// actors instead.
func TestWorkersAndShardsLoseNoBehaviour(t *testing.T) {
	names := os.Getenv("RM_CASES")
	if names == "" && os.Getenv("RM_GEN_FROM") == "" {
		names = "m3-transitive-row,m4-keyed-writers-whole-reader"
	}
	want := map[string]bool{}
	for _, n := range strings.Split(names, ",") {
		want[n] = true
	}
	configs := []string{"w1", "w2", "w3", "s2", "s3"}
	if s := os.Getenv("RM_CONFIGS"); s != "" {
		configs = strings.Split(s, ",")
	}
	cases := Cases()
	if from := os.Getenv("RM_GEN_FROM"); from != "" {
		var f, n int64
		fmt.Sscan(from, &f)
		fmt.Sscan(os.Getenv("RM_GEN_COUNT"), &n)
		cases = nil
		for seed := f; seed < f+n; seed++ {
			c, _ := GenerateBounded(seed, 400)
			if len(c.Actors) >= 3 {
				c.Name = fmt.Sprintf("gen-%d", seed)
				cases = append(cases, c)
				want[c.Name] = true
			}
		}
	}
	for _, c := range cases {
		if !want[c.Name] {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
			defer cancel()
			run := func(red string, workers, k, n int) (map[Behaviour]int, int) {
				var rec Recorder
				o := interleave.Options{Server: interleave.ServerOptions{Use: server}, Search: interleave.SearchOptions{Workers: workers}}
				o.Search.Reduction.Set(red)
				o.Search.ReductionCheck = -1
				if k > 0 {
					o.Search.Shard, o.Search.Shards = k, n
				}
				res, err := interleave.Explore(ctx, c.Scenario(&rec), o)
				if err != nil {
					t.Fatal(err)
				}
				if res.Outcome != interleave.OutcomePass {
					t.Fatalf("%s w%d shard %d/%d: %s: %s", red, workers, k, n, res.Outcome, res.Message)
				}
				return rec.Seen, res.Summary.Attempted
			}
			full, nf := run("none", 2, 0, 0)
			t.Logf("full: %d orders, %d behaviours", nf, len(full))
			check := func(label string, seen map[Behaviour]int, orders int) {
				var lost []string
				for b := range full {
					if seen[b] == 0 {
						lost = append(lost, string(b))
					}
				}
				sort.Strings(lost)
				t.Logf("%s: %d orders, %d behaviours, %d lost", label, orders, len(seen), len(lost))
				for _, b := range lost {
					t.Errorf("%s: lost by the reduction: %s", label, b)
				}
				for b := range seen {
					if full[b] == 0 {
						t.Logf("%s: extra (nondeterministic?): %s", label, b)
					}
				}
			}
			for _, cf := range configs {
				switch cf[0] {
				case 'w':
					w := int(cf[1] - '0')
					seen, n := run("por", w, 0, 0)
					check(cf, seen, n)
				case 's':
					n := int(cf[1] - '0')
					union := map[Behaviour]int{}
					total := 0
					for k := 1; k <= n; k++ {
						seen, m := run("por", 2, k, n)
						total += m
						for b, x := range seen {
							union[b] += x
						}
					}
					check(cf, union, total)
				}
			}
		})
	}
}

package search

import (
	"context"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/pginterleave/interleave/sched"
)

// simulate plays actors with the given unit counts under policy, with the
// scheduler's FIFO candidate order (earliest pending first, then actor).
// It is a pure model of the decision structure, for testing enumeration.
func simulate(units []int, policy sched.Policy) ([]sched.Decision, string, error) {
	next := make([]int, len(units))
	since := make([]int, len(units))
	var ds []sched.Decision
	var order []string
	for step := 0; ; step++ {
		var cands []sched.Candidate
		for a := range units {
			if next[a] < units[a] {
				cands = append(cands, sched.Candidate{Ref: sched.UnitRef{Actor: a, Unit: next[a]}, Since: since[a]})
			}
		}
		if len(cands) == 0 {
			return ds, strings.Join(order, " "), nil
		}
		sort.SliceStable(cands, func(i, j int) bool { return cands[i].Since < cands[j].Since })
		picks, err := policy.Choose(step, cands)
		if err != nil {
			return ds, "", err
		}
		d := sched.Decision{Step: step, Candidates: cands, Choice: picks[0] != 0}
		for _, p := range picks {
			r := cands[p].Ref
			d.Released = append(d.Released, r)
			order = append(order, string(rune('a'+r.Actor))+string(rune('1'+r.Unit)))
			next[r.Actor]++
			since[r.Actor] = step + 1
		}
		ds = append(ds, d)
	}
}

func multinomial(units []int) int {
	total, res := 0, 1
	for _, k := range units {
		for i := 1; i <= k; i++ {
			total++
			res = res * total / i
		}
	}
	return res
}

func TestExploreEnumeratesEveryOrderOnce(t *testing.T) {
	for _, tc := range []struct {
		units   []int
		workers int
		dfs     bool
	}{
		{[]int{2, 2}, 1, false}, {[]int{2, 2}, 3, false}, {[]int{3, 2}, 1, true},
		{[]int{2, 2, 2}, 1, false}, {[]int{2, 2, 2}, 4, false}, {[]int{1, 3, 2}, 2, true},
	} {
		var mu sync.Mutex
		seen := map[string]int{}
		strategy := "fifo"
		if tc.dfs {
			strategy = "dfs"
		}
		sum, err := Explore(context.Background(), Options{Strategy: strategy, Workers: tc.workers}, func(_ context.Context, _, _ int, _ Plan, p sched.Policy) Report {
			ds, order, err := simulate(tc.units, p)
			if err != nil {
				return Report{Diverged: true}
			}
			mu.Lock()
			seen[order]++
			mu.Unlock()
			return Report{Decisions: ds}
		})
		if err != nil {
			t.Fatal(err)
		}
		want := multinomial(tc.units)
		if len(seen) != want || sum.Attempted != want || !sum.Exhausted() {
			t.Errorf("units %v workers %d %s: %d distinct orders in %d attempts (exhausted %v), want %d", tc.units, tc.workers, strategy, len(seen), sum.Attempted, sum.Exhausted(), want)
		}
		for o, n := range seen {
			if n != 1 {
				t.Errorf("order %s ran %d times", o, n)
			}
		}
	}
}

func TestExploreOrderIsFewestChoicesFirstAndBudgeted(t *testing.T) {
	var depths []int
	sum, _ := Explore(context.Background(), Options{MaxAttempts: 10}, func(_ context.Context, _, _ int, plan Plan, p sched.Policy) Report {
		ds, _, _ := simulate([]int{3, 3}, p)
		depths = append(depths, plan.Depth())
		return Report{Decisions: ds}
	})
	if !sort.IntsAreSorted(depths) {
		t.Fatalf("plans were not tried fewest choices first: %v", depths)
	}
	if sum.Attempted != 10 || sum.StopReason != StopAttempts || sum.Pending == 0 {
		t.Fatalf("budget of 10: attempted %d, stop %q, pending %d", sum.Attempted, sum.StopReason, sum.Pending)
	}
}

func TestExploreStopsAtFirstFailureAndDepthBound(t *testing.T) {
	sum, _ := Explore(context.Background(), Options{}, func(_ context.Context, _, _ int, plan Plan, p sched.Policy) Report {
		ds, order, _ := simulate([]int{2, 2}, p)
		return Report{Decisions: ds, Failed: order == "a1 a2 b1 b2"}
	})
	if sum.Failures != 1 || sum.StopReason != StopFailure || sum.FirstFailure < 0 {
		t.Fatalf("summary %+v", sum)
	}
	sum, _ = Explore(context.Background(), Options{MaxDepth: 1}, func(_ context.Context, _, _ int, plan Plan, p sched.Policy) Report {
		ds, _, _ := simulate([]int{2, 2}, p)
		return Report{Decisions: ds}
	})
	if sum.MaxDepth != 1 || sum.PrunedByDepth == 0 || sum.Attempted != 4 {
		t.Fatalf("depth-bounded summary %+v", sum)
	}
}

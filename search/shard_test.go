package search

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/pginterleave/interleave/sched"
)

// Shards of a reduced search on random models: each exhausts its part, and
// together they see every behaviour the whole reduced search sees (which
// is every behaviour of the full search, TestReductionOnRandomModels).
func TestShardsOfTheReductionLoseNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 21))
	for m := 0; m < 80; m++ {
		model := randomModel(rng, false)
		whole, wsum := exploreModel(t, model, Options{})
		for n := 2; n <= 4; n++ {
			union := map[string]bool{}
			attempted := 0
			for k := 1; k <= n; k++ {
				seen, sum := exploreModel(t, model, Options{Shard: k, Shards: n, Workers: 2})
				if !sum.Exhausted() {
					t.Fatalf("model %d, shard %d/%d did not exhaust its part: %+v", m, k, n, sum)
				}
				for b := range seen {
					union[b] = true
				}
				attempted += sum.Attempted
			}
			for b := range whole {
				if !union[b] {
					t.Fatalf("model %d %+v: %d shards lost behaviour %q", m, model, n, b)
				}
			}
			for b := range union {
				if whole[b] == 0 {
					t.Fatalf("model %d: a shard saw %q, which the whole reduced search did not", m, b)
				}
			}
			if attempted < wsum.Attempted && len(union) < len(whole) {
				t.Fatalf("model %d: %d shards counted %d attempts, the whole search %d", m, n, attempted, wsum.Attempted)
			}
		}
	}
}

// Every shard runs the same shared schedules (the first schedule, then the
// plans with one choice) and shard 1 alone counts them; below them each
// shard runs its own branches (and what its own races call for).
func TestShardsShareOnlyTheFirstPlans(t *testing.T) {
	model := [][]modelUnit{
		{u("", ""), u("", "n"), {writes: []string{"n"}, ends: true}},
		{u("", ""), u("", "n"), {writes: []string{"n"}, ends: true}},
		{u("", ""), u("", "m"), {writes: []string{"n"}, ends: true}},
	}
	const n = 4
	runs := map[string][]int{} // plan -> shards that ran it
	counted := 0
	for k := 1; k <= n; k++ {
		var mu sync.Mutex
		sum, err := Explore(context.Background(), Options{Shard: k, Shards: n, Workers: 2, ReductionCheck: -1}, Hooks{}, func(_ context.Context, _, _ int, plan Plan, p sched.Policy) Report {
			ds, tr, _, err := simulateModel(model, p)
			if err != nil {
				return Report{Diverged: true}
			}
			mu.Lock()
			runs[plan.Key()] = append(runs[plan.Key()], k)
			mu.Unlock()
			return Report{Decisions: ds, Trace: tr}
		})
		if err != nil {
			t.Fatal(err)
		}
		counted += sum.Attempted
	}
	shared, total := 0, 0
	for key, ks := range runs {
		total += len(ks)
		switch {
		case len(ks) == n:
			shared++ // the shared schedules, or a plan each shard's own races called for
		case key == "":
			t.Errorf("the first schedule ran in shards %v; every shard runs it", ks)
		case len(ks) > 1:
			t.Logf("plan %q ran in shards %v (the races of each called for it)", key, ks)
		}
	}
	if shared < 2 {
		t.Errorf("%d plans shared; want the first schedule and those with one choice", shared)
	}
	if counted != total-(n-1)*shared {
		t.Errorf("the shards counted %d attempts of %d runs with %d shared plans: shard 1 alone counts the shared ones", counted, total, shared)
	}
	t.Logf("%d distinct plans, %d runs, %d shared", len(runs), total, shared)
}

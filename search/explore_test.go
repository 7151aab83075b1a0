package search

import (
	"context"
	"errors"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

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
		// A fault (a FaultPolicy's, for a single release) is recorded on
		// the decision and in the order string ("a2!reset"); it changes
		// nothing else in this model.
		fault := sched.NoFault
		if fp, ok := policy.(sched.FaultPolicy); ok && len(picks) == 1 {
			fault = fp.Fault(step)
		}
		d := sched.Decision{Step: step, Candidates: cands, Choice: len(picks) > 1 || picks[0] != 0 || fault != sched.NoFault, Fault: fault}
		for _, p := range picks {
			r := cands[p].Ref
			d.Released = append(d.Released, r)
			o := string(rune('a'+r.Actor)) + string(rune('1'+r.Unit))
			if fault != sched.NoFault {
				o += "!" + string(fault)
			}
			order = append(order, o)
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
		strategy := FIFO
		if tc.dfs {
			strategy = DFS
		}
		sum, err := Explore(context.Background(), Options{Strategy: strategy, Workers: tc.workers}, Hooks{}, func(_ context.Context, _, _ int, _ Plan, p sched.Policy) Report {
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
	sum, _ := Explore(context.Background(), Options{MaxAttempts: 10}, Hooks{}, func(_ context.Context, _, _ int, plan Plan, p sched.Policy) Report {
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

// Reruns of diverged plans count against MaxAttempts: the budget is what
// runs, not what was dispatched. Before, a search whose plans diverged ran
// past --max-runs (the fault soak: 366 attempts of 284).
func TestDivergedRerunsCountAgainstTheBudget(t *testing.T) {
	for _, workers := range []int{1, 2} {
		var mu sync.Mutex
		runs := 0
		tries := map[string]int{}
		sum, err := Explore(context.Background(), Options{MaxAttempts: 10, Workers: workers}, Hooks{}, func(_ context.Context, _, _ int, plan Plan, p sched.Policy) Report {
			ds, _, _ := simulate([]int{3, 3}, p)
			mu.Lock()
			defer mu.Unlock()
			runs++
			tries[plan.Key()]++
			// Every plan with a choice diverges on its first run.
			return Report{Decisions: ds, Diverged: plan.Depth() > 0 && tries[plan.Key()] == 1}
		})
		if err != nil {
			t.Fatal(err)
		}
		if runs > 10 || sum.Attempted > 10 || sum.Retries == 0 || sum.StopReason != StopAttempts {
			t.Fatalf("%d workers, budget 10: %d runs, attempted %d, %d reruns, stop %q; want at most 10 runs, some of them reruns", workers, runs, sum.Attempted, sum.Retries, sum.StopReason)
		}
	}
}

func TestExploreStopsAtFirstFailureAndDepthBound(t *testing.T) {
	sum, _ := Explore(context.Background(), Options{}, Hooks{}, func(_ context.Context, _, _ int, plan Plan, p sched.Policy) Report {
		ds, order, _ := simulate([]int{2, 2}, p)
		return Report{Decisions: ds, Failed: order == "a1 a2 b1 b2"}
	})
	if sum.Failures != 1 || sum.StopReason != StopFailure || sum.FirstFailure < 0 {
		t.Fatalf("summary %+v", sum)
	}
	sum, _ = Explore(context.Background(), Options{MaxDepth: 1}, Hooks{}, func(_ context.Context, _, _ int, plan Plan, p sched.Policy) Report {
		ds, _, _ := simulate([]int{2, 2}, p)
		return Report{Decisions: ds}
	})
	if sum.MaxDepth != 1 || sum.PrunedByDepth == 0 || sum.Attempted != 4 {
		t.Fatalf("depth-bounded summary %+v", sum)
	}
}

func TestRandomSearchIsReproducibleBySeed(t *testing.T) {
	run := func(seed int64, workers int) []string {
		var mu sync.Mutex
		orders := map[int]string{}
		sum, err := Explore(context.Background(), Options{Strategy: "random", Seed: seed, MaxAttempts: 30, Workers: workers}, Hooks{}, func(_ context.Context, _, seq int, _ Plan, p sched.Policy) Report {
			ds, order, _ := simulate([]int{3, 3, 2}, p)
			mu.Lock()
			orders[seq] = order
			mu.Unlock()
			return Report{Decisions: ds}
		})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Attempted != 30 || sum.StopReason != StopAttempts || sum.Exhausted() {
			t.Fatalf("summary %+v", sum)
		}
		out := make([]string, 30)
		for i := range out {
			out[i] = orders[i]
		}
		return out
	}
	a, b, c := run(7, 1), run(7, 3), run(8, 1)
	if strings.Join(a, "|") != strings.Join(b, "|") {
		t.Fatal("the same seed gave different schedules with different worker counts")
	}
	if strings.Join(a, "|") == strings.Join(c, "|") {
		t.Fatal("different seeds gave the same 30 schedules")
	}
}

// A depth-2 bug (a1 must run between b1 and b2; the FIFO order a1 b1 c1 a2
// b2 c2 misses it): PCT with depth 2 finds it with probability at least
// 1/(n*k) = 1/18 per attempt.
func TestPCTFindsDepthTwoBug(t *testing.T) {
	sum, err := Explore(context.Background(), Options{Strategy: "pct", Depth: 2, Seed: 1, MaxAttempts: 200}, Hooks{}, func(_ context.Context, _, _ int, _ Plan, p sched.Policy) Report {
		ds, order, _ := simulate([]int{2, 2, 2}, p)
		i, j, k := strings.Index(order, "b1"), strings.Index(order, "a1"), strings.Index(order, "b2")
		return Report{Decisions: ds, Failed: i < j && j < k}
	})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failures != 1 || sum.StopReason != StopFailure || sum.FirstFailure == 0 {
		t.Fatalf("PCT did not find the bug in 200 attempts: %+v", sum)
	}
	t.Logf("found after %d attempts", sum.Attempted)
}

func TestOverlapPairsAreExplored(t *testing.T) {
	var pairs int
	sum, _ := Explore(context.Background(), Options{Overlap: Pairs}, Hooks{}, func(_ context.Context, _, _ int, plan Plan, p sched.Policy) Report {
		for _, c := range plan.Choices {
			if len(c.Units) == 2 {
				pairs++
			}
		}
		ds, _, err := simulate([]int{1, 1}, p)
		if err != nil {
			return Report{Diverged: true}
		}
		return Report{Decisions: ds}
	})
	// Two single-unit actors: a-b (default), b-a, and the pair a+b, which
	// passes and so runs PairRepeats (10) times.
	if sum.Attempted != 12 || pairs != 10 || sum.Retries != 9 || !sum.Exhausted() {
		t.Fatalf("attempted %d with %d pair runs (%d retries); want 12 with 10 (9 retries)", sum.Attempted, pairs, sum.Retries)
	}
}

func TestFrontierByteBudgetIsHonest(t *testing.T) {
	sum, _ := Explore(context.Background(), Options{FrontierBytes: 2000}, Hooks{}, func(_ context.Context, _, _ int, _ Plan, p sched.Policy) Report {
		ds, _, _ := simulate([]int{3, 3}, p)
		return Report{Decisions: ds}
	})
	if sum.PrunedByBytes == 0 || sum.Exhausted() || sum.StopReason != StopMemory {
		t.Fatalf("a 2000-byte frontier over 20 orders: %+v", sum)
	}
}

// Shards explore disjoint parts whose union is the whole space.
func TestShardsPartitionTheSpace(t *testing.T) {
	units := []int{2, 2, 2}
	all := map[string]int{}
	total := 0
	for k := 1; k <= 3; k++ {
		var mu sync.Mutex
		sum, err := Explore(context.Background(), Options{Shard: k, Shards: 3, Workers: 2}, Hooks{}, func(_ context.Context, _, seq int, _ Plan, p sched.Policy) Report {
			ds, order, _ := simulate(units, p)
			mu.Lock()
			if seq > 0 || k == 1 {
				all[order]++
			}
			mu.Unlock()
			return Report{Decisions: ds}
		})
		if err != nil {
			t.Fatal(err)
		}
		if !sum.Exhausted() {
			t.Fatalf("shard %d/3 did not exhaust its part: %+v", k, sum)
		}
		total += sum.Attempted
	}
	want := multinomial(units)
	if len(all) != want || total != want {
		t.Fatalf("3 shards covered %d distinct orders in %d counted attempts; want %d and %d", len(all), total, want, want)
	}
	for o, n := range all {
		if n != 1 {
			t.Fatalf("order %s explored by %d shards", o, n)
		}
	}
}

// Extra workers start after the first attempt, and no plan waits for a
// worker that is still starting: worker 0 can finish the search alone.
func TestWorkersStartAfterTheFirstAttemptWithoutHoldingPlans(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var started []int
	var starting sync.WaitGroup
	starting.Add(2)
	byWorker := map[int]int{}
	sum, err := Explore(context.Background(), Options{Workers: 3}, Hooks{
		StartWorker: func(ctx context.Context, w int) error {
			mu.Lock()
			started = append(started, w)
			mu.Unlock()
			starting.Done()
			<-release // a database that takes its time
			return nil
		},
	}, func(_ context.Context, w, seq int, _ Plan, p sched.Policy) Report {
		if seq > 0 {
			starting.Wait() // both are starting (and will be until the end)
		}
		ds, _, err := simulate([]int{2, 2}, p)
		if err != nil {
			return Report{Diverged: true}
		}
		mu.Lock()
		byWorker[w]++
		if byWorker[w] == 6 {
			close(release) // the search waits for starting workers before it returns
		}
		mu.Unlock()
		return Report{Decisions: ds}
	})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Attempted != 6 || sum.StopReason != StopExhausted {
		t.Fatalf("attempted %d (%s), want the 6 orders exhausted", sum.Attempted, sum.StopReason)
	}
	if byWorker[0] != 6 {
		t.Errorf("attempts by worker: %v; every plan should have gone to worker 0 while the others were starting", byWorker)
	}
	sort.Ints(started)
	if len(started) != 2 || started[0] != 1 || started[1] != 2 {
		t.Errorf("started workers %v, want [1 2]", started)
	}

	// A search that fails at once starts no other worker; a worker that
	// cannot start stops the search with its error.
	calls := 0
	sum, _ = Explore(context.Background(), Options{Workers: 3}, Hooks{StartWorker: func(context.Context, int) error { calls++; return nil }},
		func(_ context.Context, _, _ int, _ Plan, p sched.Policy) Report {
			ds, _, _ := simulate([]int{2, 2}, p)
			return Report{Decisions: ds, Failed: true}
		})
	if calls != 0 || sum.Failures != 1 {
		t.Errorf("fail-at-once search: %d workers started, %d failures; want 0 and 1", calls, sum.Failures)
	}
	startCalled := make(chan struct{})
	sum, _ = Explore(context.Background(), Options{Workers: 2}, Hooks{StartWorker: func(context.Context, int) error {
		close(startCalled)
		return errors.New("no more databases")
	}},
		func(_ context.Context, _, seq int, _ Plan, p sched.Policy) Report {
			if seq > 0 {
				<-startCalled // let worker 1 try to start before the search can end
			}
			ds, _, _ := simulate([]int{3, 3}, p)
			return Report{Decisions: ds}
		})
	if sum.StopReason != StopHarness || sum.StopErr == nil || !strings.Contains(sum.StopErr.Error(), "no more databases") {
		t.Errorf("start failure: stop %q, error %v", sum.StopReason, sum.StopErr)
	}
}

// With overlap, PCT's change points may release a pair, so that it reaches a
// race inside one statement (two one-statement actors, a1 and b1 executing at
// once); without overlap it never pairs.
func TestPCTPairsWithOverlap(t *testing.T) {
	run := func(overlap Overlap, seed int64) *Summary {
		sum, err := Explore(context.Background(), Options{Strategy: "pct", Depth: 2, Seed: seed, MaxAttempts: 200, Overlap: overlap}, Hooks{}, func(_ context.Context, _, _ int, _ Plan, p sched.Policy) Report {
			ds, _, err := simulate([]int{1, 1}, p)
			if err != nil {
				return Report{Diverged: true}
			}
			failed := false
			for _, d := range ds {
				if len(d.Released) == 2 {
					failed = true
				}
			}
			return Report{Decisions: ds, Failed: failed}
		})
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	for seed := int64(1); seed <= 3; seed++ {
		if sum := run(Pairs, seed); sum.Failures != 1 {
			t.Errorf("seed %d: PCT with overlap did not find the one-statement race in 200 attempts: %+v", seed, sum)
		} else {
			t.Logf("seed %d: found after %d attempts", seed, sum.Attempted)
		}
		if sum := run(NoOverlap, seed); sum.Failures != 0 {
			t.Errorf("seed %d: PCT without overlap released a pair", seed)
		}
	}
}

// Workers waiting to start are woken when the search stops before its first
// attempt, and a worker whose start fails after the others finished the
// search does not turn the finished search into an error.
func TestWorkerStartEdges(t *testing.T) {
	done := make(chan *Summary, 1)
	go func() {
		sum, _ := Explore(context.Background(), Options{Workers: 3, MaxTime: time.Nanosecond}, Hooks{StartWorker: func(context.Context, int) error { return nil }},
			func(_ context.Context, _, _ int, _ Plan, p sched.Policy) Report {
				ds, _, _ := simulate([]int{2, 2}, p)
				return Report{Decisions: ds}
			})
		done <- sum
	}()
	select {
	case sum := <-done:
		if sum.StopReason != StopTime {
			t.Errorf("stop reason %q, want %q", sum.StopReason, StopTime)
		}
	case <-time.After(time.Minute):
		t.Fatal("a search whose time ran out before its first attempt did not return")
	}

	finished := make(chan struct{})
	sum, _ := Explore(context.Background(), Options{Workers: 2}, Hooks{
		StartWorker: func(context.Context, int) error {
			<-finished
			return errors.New("no more databases")
		},
		Progress: func(p Progress) {
			if p.Attempts == 6 {
				close(finished) // the last of the 6 orders is recorded
			}
		},
	}, func(_ context.Context, _, _ int, _ Plan, p sched.Policy) Report {
		ds, _, _ := simulate([]int{2, 2}, p)
		return Report{Decisions: ds}
	})
	if sum.StopReason != StopExhausted || sum.StopErr != nil || sum.Attempted != 6 {
		t.Errorf("stop %q (%v) after %d attempts; want the 6 orders exhausted without error", sum.StopReason, sum.StopErr, sum.Attempted)
	}
}

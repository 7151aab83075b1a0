package search

import (
	"context"
	"sync"
	"testing"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/sched"
)

// simulateFaults is simulate for policies that cannot fail.
func simulateFaults(units []int, policy sched.Policy) ([]sched.Decision, string) {
	ds, order, _ := simulate(units, policy)
	return ds, order
}

func binomial(n, k int) int {
	r := 1
	for i := 1; i <= k; i++ {
		r = r * (n - k + i) / i
	}
	return r
}

// Every order with every placement of up to MaxFaults faults of every kind
// is run exactly once, by fifo and dfs, with one worker or several; the
// search is then exhaustive and its summary counts the faulted attempts.
func TestExploreEnumeratesEveryFaultOnce(t *testing.T) {
	for _, tc := range []struct {
		units     []int
		faults    sched.Faults
		maxFaults int
		workers   int
		dfs       bool
	}{
		{[]int{2, 2}, sched.Faults{sched.LostReply}, 1, 1, false},
		{[]int{2, 2}, sched.Faults{sched.LostReply, sched.Reset, sched.Terminate}, 1, 3, false},
		{[]int{2, 1}, sched.Faults{sched.Reset, sched.Terminate}, 2, 1, true},
		{[]int{1, 2, 1}, sched.Faults{sched.LostReply}, 2, 2, false},
	} {
		// Without reduction, and with it but no trace to analyse (every
		// alternative is then queued, each fault once at each state).
		for _, red := range []Reduction{NoReduction, POR} {
			var mu sync.Mutex
			seen := map[string]int{}
			strategy := FIFO
			if tc.dfs {
				strategy = DFS
			}
			sum, err := Explore(context.Background(), Options{Strategy: strategy, Workers: tc.workers, Faults: tc.faults, MaxFaults: tc.maxFaults, Reduction: red}, Hooks{}, func(_ context.Context, _, _ int, _ Plan, p sched.Policy) Report {
				ds, order := simulateFaults(tc.units, p)
				mu.Lock()
				seen[order]++
				mu.Unlock()
				return Report{Decisions: ds}
			})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, k := range tc.units {
				n += k
			}
			placements, faulted := 0, 0
			for j := 0; j <= tc.maxFaults && j <= n; j++ {
				p := binomial(n, j)
				for i := 0; i < j; i++ {
					p *= len(tc.faults)
				}
				placements += p
				if j > 0 {
					faulted += p
				}
			}
			want := multinomial(tc.units) * placements
			if len(seen) != want || sum.Attempted != want || !sum.Exhausted() {
				t.Errorf("%v faults %v max %d: %d distinct of %d attempts (exhausted %v); want %d", tc.units, tc.faults, tc.maxFaults, len(seen), sum.Attempted, sum.Exhausted(), want)
			}
			for o, c := range seen {
				if c != 1 {
					t.Errorf("%v: %q ran %d times", tc.units, o, c)
				}
			}
			if sum.FaultAttempts != multinomial(tc.units)*faulted {
				t.Errorf("%v: %d faulted attempts counted; want %d", tc.units, sum.FaultAttempts, multinomial(tc.units)*faulted)
			}
			if sum.Reduction != red {
				t.Errorf("%v: reduction %s with faults; want %s", tc.units, sum.Reduction, red)
			}
		}
	}
}

func TestFaultOptionsAreChecked(t *testing.T) {
	run := func(context.Context, int, int, Plan, sched.Policy) Report { return Report{} }
	for _, o := range []Options{
		{Strategy: Random, Faults: sched.Faults{sched.Reset}, MaxFaults: 1},
		{Faults: sched.Faults{"drop-table"}, MaxFaults: 1},
		{Faults: sched.Faults{sched.NoFault}, MaxFaults: 1},
		{Faults: sched.Faults{sched.Reset}},
	} {
		if _, err := Explore(context.Background(), o, Hooks{}, run); err == nil {
			t.Errorf("options %+v: no error", o)
		}
	}
	if _, err := sched.ParseFaults("lost-reply,bogus"); err == nil {
		t.Error("ParseFaults took an unknown kind")
	}
	fs, err := sched.ParseFaults("reset, lost-reply,reset")
	if err != nil || fs.String() != "reset,lost-reply" {
		t.Errorf("ParseFaults: %v %v", fs, err)
	}
}

// A fault is part of a plan's identity and of a schedule's choices, and
// the replaying policies apply it where it was recorded.
func TestFaultsAreFollowed(t *testing.T) {
	u := sched.UnitRef{Actor: 1, Unit: 0}
	p := Plan{Choices: []Choice{{Step: 1, Units: []sched.UnitRef{u}, Fault: sched.Terminate}}}
	if p.Key() == (Plan{Choices: []Choice{{Step: 1, Units: []sched.UnitRef{u}}}}).Key() {
		t.Fatal("a faulted plan has the key of the unfaulted one")
	}
	ds, order := simulateFaults([]int{2, 1}, NewPlanPolicy(p))
	if order != "a1 b1!terminate a2" {
		t.Fatalf("plan ran %q", order)
	}
	if got := ChoicesOf(ds); got.Key() != p.Key() {
		t.Fatalf("choices of the run %q; want %q", got.Key(), p.Key())
	}
	specs := SpecsOf(ds)
	if len(specs) != 1 || specs[0].Fault != sched.Terminate {
		t.Fatalf("specs %+v", specs)
	}
	if _, order := simulateFaults([]int{2, 1}, &ChoicePolicy{Specs: specs}); order != "a1 b1!terminate a2" {
		t.Fatalf("choice policy ran %q", order)
	}
	// A fault at the default unit: no reordering, still a choice.
	def := []ChoiceSpec{{Unit: sched.UnitRef{Actor: 0, Unit: 1}, Over: sched.UnitRef{Actor: 0, Unit: 1}, Fault: sched.LostReply}}
	ds, order = simulateFaults([]int{2, 1}, &ChoicePolicy{Specs: def})
	if order != "a1 b1 a2!lost-reply" && order != "a1 a2!lost-reply b1" {
		t.Fatalf("default-unit fault ran %q", order)
	}
	if c := ChoicesOf(ds); len(c.Choices) != 1 || c.Choices[0].Fault != sched.LostReply {
		t.Fatalf("choices %+v", c)
	}
	// Exact and guided replay of a recording with a fault.
	names := []string{"a", "b"}
	rec := &artifact.Artifact{}
	ref := func(r sched.UnitRef) artifact.UnitRef {
		return artifact.UnitRef{Actor: names[r.Actor], Conn: r.Conn, Unit: r.Unit, Hash: artifact.HashString(0)}
	}
	ds, _ = simulateFaults([]int{2, 1}, NewPlanPolicy(p))
	for _, d := range ds {
		ad := artifact.Decision{Step: d.Step, Choice: d.Choice, Fault: string(d.Fault)}
		for _, r := range d.Released {
			ad.Release = append(ad.Release, ref(r))
		}
		for _, c := range d.Candidates {
			ad.Candidates = append(ad.Candidates, ref(c.Ref))
		}
		rec.Schedule.Decisions = append(rec.Schedule.Decisions, ad)
		rec.Units = append(rec.Units, artifact.Unit{Actor: names[d.Released[0].Actor], Unit: d.Released[0].Unit, Hash: artifact.HashString(0)})
	}
	if _, order := simulateFaults([]int{2, 1}, NewExactPolicy(rec, names)); order != "a1 b1!terminate a2" {
		t.Fatalf("exact replay ran %q", order)
	}
	if _, order := simulateFaults([]int{2, 1}, NewGuidedPolicy(rec, names)); order != "a1 b1!terminate a2" {
		t.Fatalf("guided replay ran %q", order)
	}
	rec.Schedule.Decisions[1].Fault = "unplug"
	if err := CheckFaults(rec); err == nil {
		t.Fatal("CheckFaults took an unknown fault")
	}
}

// With shards, every order and fault placement is run by exactly one
// shard, apart from the first schedule, which every shard runs and shard
// 1 alone counts (deal in shard.go gives the fault plans out with the
// others).
func TestShardsDealFaultPlans(t *testing.T) {
	units := []int{2, 1}
	faults := sched.Faults{sched.LostReply, sched.Reset}
	whole := map[string]bool{}
	if _, err := Explore(context.Background(), Options{Workers: 1, Faults: faults, MaxFaults: 1}, Hooks{}, func(_ context.Context, _, _ int, _ Plan, p sched.Policy) Report {
		ds, order := simulateFaults(units, p)
		whole[order] = true
		return Report{Decisions: ds}
	}); err != nil {
		t.Fatal(err)
	}
	for n := 2; n <= 4; n++ {
		runs := map[string]int{}
		counted := 0
		for k := 1; k <= n; k++ {
			sum, err := Explore(context.Background(), Options{Workers: 1, Faults: faults, MaxFaults: 1, Shard: k, Shards: n}, Hooks{}, func(_ context.Context, _, _ int, _ Plan, p sched.Policy) Report {
				ds, order := simulateFaults(units, p)
				runs[order]++
				return Report{Decisions: ds}
			})
			if err != nil {
				t.Fatal(err)
			}
			if !sum.Exhausted() {
				t.Fatalf("shard %d/%d did not exhaust its part: %+v", k, n, sum)
			}
			counted += sum.Attempted
		}
		for o := range whole {
			if runs[o] == 0 {
				t.Errorf("%d shards: %q ran in none", n, o)
			}
		}
		for o, c := range runs {
			if !whole[o] {
				t.Errorf("%d shards ran %q, which the whole search did not", n, o)
			}
			if c > 1 && c != n {
				t.Errorf("%d shards ran %q %d times", n, o, c)
			}
		}
		if counted != len(whole) {
			t.Errorf("%d shards counted %d attempts; the whole search runs %d orders", n, counted, len(whole))
		}
	}
}

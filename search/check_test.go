package search

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/pginterleave/interleave/sched"
)

// orderRun runs a model whose trace says every unit is independent (they
// touch nothing in common), while what the actors do depends on the order
// of their units: the dependence rule is wrong for it, as a hole in the
// classification would make it. behave maps the order of releases to a
// behaviour; fails says which orders violate the invariant.
func orderRun(units []int, fails func(order string) bool, calls *[]string) RunFunc {
	return func(_ context.Context, _, _ int, _ Plan, p sched.Policy) Report {
		ds, _, err := simulate(units, p)
		if err != nil {
			return Report{Diverged: true}
		}
		tr := &Trace{}
		var order []string
		for _, d := range ds {
			for _, r := range d.Released {
				tr.Events = append(tr.Events, Event{Kind: Whole, Ref: r, Actor: r.Actor, Decision: d.Step,
					Reads: []string{fmt.Sprintf("t%d", r.Actor)}})
				order = append(order, fmt.Sprintf("%d.%d", r.Actor, r.Unit))
			}
		}
		o := strings.Join(order, " ")
		*calls = append(*calls, o)
		return Report{Decisions: ds, Trace: tr, Behaviour: o, Failed: fails(o)}
	}
}

// TestReductionCheckFindsANewBehaviour: the reduced search runs one order
// of two independent-looking units; the check samples the skipped one,
// whose behaviour is new, runs the order it was skipped from again (same
// behaviour) and reports a new behaviour; the orders it draws at random
// find it too.
func TestReductionCheckFindsANewBehaviour(t *testing.T) {
	var calls []string
	sum, err := Explore(context.Background(), Options{}, Hooks{}, orderRun([]int{1, 1}, func(string) bool { return false }, &calls))
	if err != nil {
		t.Fatal(err)
	}
	c := sum.Check
	// One skipped order and seven drawn at random (the default 8); each
	// with a new behaviour is run again and repeats it.
	if c.Sampled != DefaultReductionCheck || c.NewBehaviours == 0 || c.Unrepeatable != 0 || c.First == "" || sum.Failures != 0 {
		t.Fatalf("check %+v, failures %d; runs %q", c, sum.Failures, calls)
	}
	if calls[0] != "0.0 1.0" || calls[1] != "1.0 0.0" || calls[2] != calls[0] {
		t.Errorf("runs: %q; want the default order, the skipped one, the default again", calls[:3])
	}
	t.Log(c.First)
}

// TestReductionCheckReportsAFailure: a skipped order that violates the
// invariant is the search's failure.
func TestReductionCheckReportsAFailure(t *testing.T) {
	var calls []string
	sum, err := Explore(context.Background(), Options{}, Hooks{}, orderRun([]int{1, 1}, func(o string) bool { return strings.HasPrefix(o, "1.") }, &calls))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failures != 1 || !sum.CheckFailed || sum.StopReason != StopFailure || sum.Check.Sampled != 1 {
		t.Fatalf("failures %d checkFailed %v stop %q check %+v; runs %q", sum.Failures, sum.CheckFailed, sum.StopReason, sum.Check, calls)
	}
}

// TestReductionCheckOffAndUnrepeatable: ReductionCheck < 0 samples nothing;
// a scenario whose parent order does not repeat its behaviour concludes
// nothing.
func TestReductionCheckOffAndUnrepeatable(t *testing.T) {
	var calls []string
	sum, err := Explore(context.Background(), Options{ReductionCheck: -1}, Hooks{}, orderRun([]int{1, 1}, func(string) bool { return false }, &calls))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Check.Sampled != 0 || len(calls) != 1 {
		t.Errorf("check off: %+v, runs %q", sum.Check, calls)
	}
	n := 0
	run := func(ctx context.Context, w, seq int, p Plan, pol sched.Policy) Report {
		var c []string
		r := orderRun([]int{1, 1}, func(string) bool { return false }, &c)(ctx, w, seq, p, pol)
		n++
		r.Behaviour = fmt.Sprintf("%s #%d", r.Behaviour, n) // differs on every run
		return r
	}
	sum, err = Explore(context.Background(), Options{}, Hooks{}, run)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Check.Sampled != DefaultReductionCheck || sum.Check.NewBehaviours != 0 || sum.Check.Unrepeatable == 0 {
		t.Errorf("unrepeatable: %+v", sum.Check)
	}
}

// TestReductionCheckSamplesNothingWithoutSkips: a correct reduction on a
// model where every order is explored leaves nothing to sample; the full
// search samples nothing either.
func TestReductionCheckSamplesNothingWithoutSkips(t *testing.T) {
	actors := [][]modelUnit{{u("", "x")}, {u("", "x")}}
	_, sum := exploreModel(t, actors, Options{})
	if sum.Check.Sampled != 0 || sum.Check.NewBehaviours != 0 {
		t.Errorf("dependent units: %+v", sum.Check)
	}
	_, sum = exploreModel(t, actors, Options{Reduction: NoReduction})
	if sum.Check.Sampled != 0 {
		t.Errorf("no reduction: %+v", sum.Check)
	}
}

// TestReductionRecordsStayWithinTheMemoryBudget: the reduction's records
// of states count in the frontier's memory budget; past it the search
// stops and says it was not exhaustive.
func TestReductionRecordsStayWithinTheMemoryBudget(t *testing.T) {
	actors := [][]modelUnit{{u("", "x"), u("y", ""), u("", "x")}, {u("x", ""), u("", "y"), u("", "x")}, {u("", "x"), u("", "y")}}
	_, whole := exploreModel(t, actors, Options{})
	_, sum := exploreModel(t, actors, Options{FrontierBytes: 6144})
	t.Logf("%d attempts without a budget, %d with", whole.Attempted, sum.Attempted)
	if whole.StopReason != StopExhausted || sum.StopReason != StopMemory || sum.Exhausted() || sum.Attempted >= whole.Attempted {
		t.Fatalf("stop %q after %d attempts (whole search: %q after %d)", sum.StopReason, sum.Attempted, whole.StopReason, whole.Attempted)
	}
}

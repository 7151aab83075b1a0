package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/pginterleave/interleave/sched"
)

// modelUnit is a unit of a pure model of actors: what it reads and writes,
// whether it ends a transaction, whether it is global.
type modelUnit struct {
	reads, writes []string
	ends, global  bool
	atomic        bool // Event.Atomic
}

// simulateModel plays a model under policy like simulate, and returns the
// trace partial-order reduction sees (every unit a Whole event; no locks)
// and the behaviour: for every dependent pair of units of different actors,
// which ran first. Two orders with the same behaviour are equivalent.
func simulateModel(actors [][]modelUnit, policy sched.Policy) ([]sched.Decision, *Trace, string, error) {
	units := make([]int, len(actors))
	for i, a := range actors {
		units[i] = len(a)
	}
	ds, order, err := simulate(units, policy)
	if err != nil {
		return nil, nil, "", err
	}
	tr := &Trace{}
	for _, d := range ds {
		for _, r := range d.Released {
			u := actors[r.Actor][r.Unit]
			ev := Event{Kind: Whole, Ref: r, Actor: r.Actor, Decision: d.Step, Global: u.global || d.Fault != sched.NoFault,
				Reads: sorted(u.reads), Writes: sorted(u.writes), EndsTx: u.ends, Fault: d.Fault, Atomic: u.atomic}
			if u.ends {
				ev.TxWrites = sorted(u.writes)
			}
			tr.Events = append(tr.Events, ev)
		}
	}
	var pairs []string
	for i := range tr.Events {
		for j := i + 1; j < len(tr.Events); j++ {
			a, b := &tr.Events[i], &tr.Events[j]
			if a.Actor != b.Actor && dependent(a, b) {
				pairs = append(pairs, fmt.Sprintf("%d.%d%s<%d.%d%s", a.Actor, a.Ref.Unit, a.Fault, b.Actor, b.Ref.Unit, b.Fault))
			}
		}
	}
	sort.Strings(pairs)
	_ = order
	return ds, tr, strings.Join(pairs, " "), nil
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// exploreModel explores a model and returns the behaviours seen and the
// attempts made.
func exploreModel(t *testing.T, actors [][]modelUnit, opts Options) (map[string]int, *Summary) {
	t.Helper()
	var mu sync.Mutex
	seen := map[string]int{}
	sum, err := Explore(context.Background(), opts, Hooks{}, func(_ context.Context, _, _ int, _ Plan, p sched.Policy) Report {
		ds, tr, behaviour, err := simulateModel(actors, p)
		if err != nil {
			return Report{Diverged: true}
		}
		mu.Lock()
		seen[behaviour]++
		mu.Unlock()
		return Report{Decisions: ds, Trace: tr}
	})
	if err != nil {
		t.Fatal(err)
	}
	return seen, sum
}

func u(reads, writes string) modelUnit {
	return modelUnit{reads: strings.Fields(reads), writes: strings.Fields(writes)}
}

// The reduction finds every behaviour the full search finds, and runs each
// far fewer times.
func TestReductionKeepsEveryBehaviour(t *testing.T) {
	commit := modelUnit{ends: true}
	models := map[string][][]modelUnit{
		"independent": {{u("a", ""), u("", "a")}, {u("b", ""), u("", "b")}, {u("c", ""), u("", "c")}},
		"lost update": {{u("n", ""), u("", "n")}, {u("n", ""), u("", "n")}},
		"three writers": {
			{u("", "t"), u("x", "")}, {u("", "t"), u("y", "")}, {u("", "t")},
		},
		"mixed": {
			{u("a", ""), u("", "b"), u("c", "")},
			{u("b", ""), u("", "a")},
			{u("", "c"), u("d", "")},
		},
		"commits": {
			{u("", "x"), {writes: []string{"x"}, ends: true}},
			{u("x", ""), commit, u("", "y")},
			{u("y", "")},
		},
		"global": {{u("a", ""), {global: true}}, {u("b", "")}, {u("", "c")}},
	}
	for name, m := range models {
		for _, workers := range []int{1, 3} {
			full, fsum := exploreModel(t, m, Options{Reduction: NoReduction, Workers: workers})
			red, rsum := exploreModel(t, m, Options{Workers: workers})
			for b := range full {
				if red[b] == 0 {
					t.Errorf("%s (%d workers): the reduction lost behaviour %q", name, workers, b)
				}
			}
			for b := range red {
				if full[b] == 0 {
					t.Errorf("%s: the reduction saw %q, which the full search did not", name, b)
				}
			}
			if !rsum.Exhausted() || !fsum.Exhausted() {
				t.Errorf("%s: not exhausted: %+v / %+v", name, rsum, fsum)
			}
			if rsum.Attempted > fsum.Attempted {
				t.Errorf("%s: %d attempts with reduction, %d without", name, rsum.Attempted, fsum.Attempted)
			}
			t.Logf("%s, %d workers: %d behaviours; %d attempts without reduction, %d with (%d alternatives, %d queued)",
				name, workers, len(full), fsum.Attempted, rsum.Attempted, rsum.Alternatives, rsum.Queued)
		}
	}
	// Independent actors: one order is all there is.
	_, sum := exploreModel(t, models["independent"], Options{})
	if sum.Attempted != 1 {
		t.Errorf("three independent actors: %d attempts, want 1", sum.Attempted)
	}
}

// Random models: the reduction never loses a behaviour.
func TestReductionOnRandomModels(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for m := 0; m < 60; m++ {
		model := randomModel(rng, true)
		full, fsum := exploreModel(t, model, Options{Reduction: NoReduction})
		red, rsum := exploreModel(t, model, Options{})
		for b := range full {
			if red[b] == 0 {
				t.Fatalf("model %d %+v: lost behaviour %q (%d vs %d attempts)", m, model, b, rsum.Attempted, fsum.Attempted)
			}
		}
	}
}

// randomModel draws a model of 2 or 3 actors with 1 to 3 units each, over
// the relations a, b and c; with globals, some units are global.
func randomModel(rng *rand.Rand, globals bool) [][]modelUnit {
	rels := []string{"a", "b", "c"}
	kinds := 5
	if globals {
		kinds = 6
	}
	var model [][]modelUnit
	for a := 0; a < 2+rng.IntN(2); a++ {
		var units []modelUnit
		for k := 0; k < 1+rng.IntN(3); k++ {
			mu := modelUnit{}
			switch rng.IntN(kinds) {
			case 0:
				mu.writes = []string{rels[rng.IntN(3)]}
			case 1:
				mu.reads = []string{rels[rng.IntN(3)]}
			case 2:
				mu.writes = []string{rels[rng.IntN(3)]}
				mu.ends = true
			case 3:
				mu.reads = []string{rels[rng.IntN(3)], rels[rng.IntN(3)]}
			case 4:
				if globals {
					mu.global = rng.IntN(4) == 0
				}
			}
			units = append(units, mu)
		}
		model = append(model, units)
	}
	return model
}

// Shards under reduction: the first schedule's alternatives are dealt out
// whole, each shard reduces below them, and together they see every
// behaviour.
func TestReductionAcrossShards(t *testing.T) {
	model := [][]modelUnit{
		{u("", "t"), u("x", ""), {writes: []string{"x"}, ends: true}},
		{u("", "t"), u("y", "")},
		{u("x", ""), u("", "t")},
	}
	full, _ := exploreModel(t, model, Options{Reduction: NoReduction})
	union := map[string]int{}
	for k := 1; k <= 3; k++ {
		seen, sum := exploreModel(t, model, Options{Shard: k, Shards: 3, Workers: 2})
		if !sum.Exhausted() {
			t.Fatalf("shard %d/3 did not exhaust its part: %+v", k, sum)
		}
		for b := range seen {
			union[b]++
		}
	}
	for b := range full {
		if union[b] == 0 {
			t.Errorf("no shard saw behaviour %q", b)
		}
	}
}

// TestAtomicUnitsAreNoPair: under overlap pairs, two dependent units are
// also released together, unless both are atomic (advisory lock calls),
// which PostgreSQL runs as one of their two orders: the sequential race
// already explores both.
func TestAtomicUnitsAreNoPair(t *testing.T) {
	for _, atomic := range []bool{false, true} {
		lock := modelUnit{reads: []string{"advisory locks"}, writes: []string{"advisory locks"}, atomic: atomic}
		model := [][]modelUnit{{lock}, {lock}}
		pairs := 0
		sum, err := Explore(context.Background(), Options{Overlap: Pairs}, Hooks{}, func(_ context.Context, _, _ int, plan Plan, p sched.Policy) Report {
			for _, c := range plan.Choices {
				if len(c.Units) == 2 {
					pairs++
				}
			}
			ds, tr, _, err := simulateModel(model, p)
			if err != nil {
				return Report{Diverged: true}
			}
			return Report{Decisions: ds, Trace: tr}
		})
		if err != nil {
			t.Fatal(err)
		}
		if !sum.Exhausted() || (atomic && pairs != 0) || (!atomic && pairs == 0) {
			t.Errorf("atomic %v: %d attempts, %d pair runs, exhausted %v", atomic, sum.Attempted, pairs, sum.Exhausted())
		}
		if sum.Attempted < 2 {
			t.Errorf("atomic %v: %d attempts; both orders must run", atomic, sum.Attempted)
		}
	}
}

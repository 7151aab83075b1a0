package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/pginterleave/interleave/sched"
)

// TestVictimOrderKeeping: another victim for a later deadlock keeps the
// earlier deadlocks' victims when one order of the actors can, and says so
// when it cannot.
func TestVictimOrderKeeping(t *testing.T) {
	for _, tc := range []struct {
		name    string
		victims []int
		actors  int
		keep    []Deadlock
		d       Deadlock
		a       int
		want    []int
		ok      bool
	}{
		{name: "one deadlock: the same as withVictimFirst", actors: 3, d: Deadlock{Actors: []int{0, 2}}, a: 2, want: []int{2, 0, 1}, ok: true},
		{name: "back to the default order", victims: []int{1, 0}, actors: 2, d: Deadlock{Actors: []int{1, 0}}, a: 0, want: nil, ok: true},
		// 0 was aborted in a deadlock with 1; aborting 2 in a deadlock
		// with 1 is compatible: 0 < 1 and 2 < 1.
		{name: "other pairs combine", actors: 3, keep: []Deadlock{{Actors: []int{0, 1}}}, d: Deadlock{Actors: []int{1, 2}}, a: 2, want: []int{2, 0, 1}, ok: true},
		// 0 was aborted before 1 (0 < 1); aborting 1 in a second deadlock
		// of the same two actors needs 1 < 0.
		{name: "the same pair twice", actors: 2, keep: []Deadlock{{Actors: []int{0, 1}}}, d: Deadlock{Actors: []int{0, 1}}, a: 1, ok: false},
		// A three-way cycle then a pair: 1 was the victim of {1, 0, 2};
		// aborting 2 in {0, 2} needs 2 < 0, and 1 < 2 still holds.
		{name: "three actors", actors: 3, keep: []Deadlock{{Actors: []int{1, 0, 2}}}, d: Deadlock{Actors: []int{0, 2}}, a: 2, want: []int{1, 2, 0}, ok: true},
		{name: "three actors, impossible", actors: 3, keep: []Deadlock{{Actors: []int{1, 0, 2}}}, d: Deadlock{Actors: []int{1, 2}}, a: 2, ok: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := victimOrderKeeping(tc.victims, tc.actors, tc.keep, tc.d, tc.a)
			if ok != tc.ok || (ok && !reflect.DeepEqual(got, tc.want)) {
				t.Fatalf("victimOrderKeeping = %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
			if !ok {
				return
			}
			// The order does what it promises under the engine's rule:
			// the lowest rank among a deadlock's actors is aborted.
			rank := VictimRank(got, tc.actors)
			victim := func(d Deadlock) int {
				v := d.Actors[0]
				for _, x := range d.Actors {
					if rank[x] < rank[v] {
						v = x
					}
				}
				return v
			}
			for _, k := range tc.keep {
				if victim(k) != k.Actors[0] {
					t.Errorf("deadlock %v now aborts %d", k.Actors, victim(k))
				}
			}
			if victim(tc.d) != tc.a {
				t.Errorf("deadlock %v aborts %d, not %d", tc.d.Actors, victim(tc.d), tc.a)
			}
		})
	}
	if got := withVictimFirst(nil, 2, 3); !reflect.DeepEqual(got, []int{2, 0, 1}) {
		t.Errorf("withVictimFirst = %v", got)
	}
}

// TestSecondDeadlockVictimIsCounted: an attempt in which the same two
// actors deadlock twice. One victim order per attempt can abort 0 then 0,
// or 1 then 1, never 0 then 1: the search says it could not explore that
// choice instead of finishing as if complete.
func TestSecondDeadlockVictimIsCounted(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]bool{}
	sum, err := Explore(context.Background(), Options{Reduction: NoReduction, Workers: 1}, Hooks{}, func(_ context.Context, _, _ int, plan Plan, p sched.Policy) Report {
		ds, _, err := simulate([]int{1, 1}, p)
		if err != nil {
			return Report{Diverged: true}
		}
		rank := VictimRank(plan.Victims, 2)
		victim := 0
		if rank[1] < rank[0] {
			victim = 1
		}
		pair := []int{victim, 1 - victim}
		mu.Lock()
		seen[fmt.Sprint(plan.Victims)] = true
		mu.Unlock()
		return Report{Decisions: ds, Actors: 2, Deadlocks: []Deadlock{{Actors: pair, Step: 0}, {Actors: pair, Step: 1}}}
	})
	if err != nil {
		t.Fatal(err)
	}
	if sum.VictimSequences == 0 || sum.FirstVictimSequence == "" {
		t.Fatalf("no victim sequence counted: %+v", sum)
	}
	if !seen["[1 0]"] {
		t.Errorf("the other victim order was never run: %v", seen)
	}
}

// TestVictimChoicesLoseNothing: random models in which one unit of actor
// 0 and one of actor 1 write "d", and whichever of them runs second
// deadlocks with the first; the victim follows the plan's victim order
// and is part of the behaviour. The reduction, whose victim plans share
// the states before the deadlock with the attempt that deadlocked
// (node.victimsAt), finds every behaviour the full search finds, victims
// included, and never runs more orders.
func TestVictimChoicesLoseNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	explore := func(model [][]modelUnit, x, y sched.UnitRef, opts Options) (map[string]int, *Summary) {
		var mu sync.Mutex
		seen := map[string]int{}
		sum, err := Explore(context.Background(), opts, Hooks{}, func(_ context.Context, _, _ int, plan Plan, p sched.Policy) Report {
			ds, tr, behaviour, err := simulateModel(model, p)
			if err != nil {
				return Report{Diverged: true}
			}
			rep := Report{Decisions: ds, Trace: tr, Actors: len(model)}
			var first *sched.UnitRef
			for _, d := range ds {
				for _, r := range d.Released {
					if r != x && r != y {
						continue
					}
					if first == nil {
						first = &r
						continue
					}
					// r waits for first's actor, which then waits for r's.
					rank := VictimRank(plan.Victims, len(model))
					victim := r.Actor
					if rank[first.Actor] < rank[victim] {
						victim = first.Actor
					}
					// The victim first, as engine/record.go reports it.
					rep.Deadlocks = []Deadlock{{Actors: []int{victim, r.Actor + first.Actor - victim}, Step: d.Step}}
					behaviour = fmt.Sprintf("victim=%d", victim)
					// What the victim does after the deadlock depends
					// on it: its later units also write "v" (a retry
					// that records itself), so the victim's continuation
					// has races the other's has not.
					for i := range tr.Events {
						ev := &tr.Events[i]
						if ev.Actor == victim && ev.Decision > d.Step {
							ev.Writes = sorted(append(ev.Writes, "v"))
						}
					}
					var pairs []string
					for i := range tr.Events {
						for j := i + 1; j < len(tr.Events); j++ {
							a, b := &tr.Events[i], &tr.Events[j]
							if a.Actor != b.Actor && dependent(a, b) {
								pairs = append(pairs, fmt.Sprintf("%d.%d<%d.%d", a.Actor, a.Ref.Unit, b.Actor, b.Ref.Unit))
							}
						}
					}
					sort.Strings(pairs)
					behaviour += " " + strings.Join(pairs, " ")
				}
			}
			mu.Lock()
			seen[behaviour]++
			mu.Unlock()
			return rep
		})
		if err != nil {
			t.Fatal(err)
		}
		return seen, sum
	}
	total, totalFull := 0, 0
	for m := 0; m < 120; m++ {
		model := randomModel(rng, m%4 == 0)
		var refs [2]sched.UnitRef
		for a := 0; a < 2; a++ {
			k := rng.IntN(len(model[a]) + 1)
			unit := modelUnit{writes: []string{"d"}}
			model[a] = append(model[a][:k], append([]modelUnit{unit}, model[a][k:]...)...)
			refs[a] = sched.UnitRef{Actor: a, Unit: k}
		}
		// A reader of what a victim's continuation writes.
		a := rng.IntN(len(model))
		k := rng.IntN(len(model[a]) + 1)
		if a < 2 && k <= refs[a].Unit {
			refs[a].Unit++
		}
		model[a] = append(model[a][:k], append([]modelUnit{u("v", "")}, model[a][k:]...)...)
		sizes := make([]int, len(model))
		for a := range model {
			sizes[a] = len(model[a])
		}
		if multinomial(sizes) > 400 {
			continue // the unreduced search would take seconds
		}
		for _, workers := range []int{1, 2} {
			full, fsum := explore(model, refs[0], refs[1], Options{Reduction: NoReduction, Workers: workers, ReductionCheck: -1})
			red, rsum := explore(model, refs[0], refs[1], Options{Workers: workers, ReductionCheck: -1})
			for b := range full {
				if red[b] == 0 {
					t.Fatalf("model %d %+v (%d workers): the reduction lost %q (%d attempts against %d)", m, model, workers, b, rsum.Attempted, fsum.Attempted)
				}
			}
			if !rsum.Exhausted() || rsum.Attempted > fsum.Attempted {
				t.Fatalf("model %d (%d workers): %d attempts with reduction, %d without; %+v", m, workers, rsum.Attempted, fsum.Attempted, rsum)
			}
			if workers == 1 {
				total += rsum.Attempted
				totalFull += fsum.Attempted
			}
		}
	}
	t.Logf("1 worker: %d attempts with reduction, %d without", total, totalFull)
}

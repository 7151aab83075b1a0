package search

import (
	"context"
	"fmt"
	"reflect"
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

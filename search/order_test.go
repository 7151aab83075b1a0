package search

import (
	"strings"
	"testing"

	"github.com/pginterleave/interleave/sched"
)

// An inline order is read by actor, each name its actor's next command;
// what cannot be an order is refused with the step and the name.
func TestParseOrder(t *testing.T) {
	actors := []string{"alice", "bob"}
	got, err := ParseOrder("alice, bob,alice,bob", actors)
	want := []OrderStep{{"alice", 0}, {"bob", 0}, {"alice", 1}, {"bob", 1}}
	if err != nil || len(got) != len(want) {
		t.Fatalf("ParseOrder: %v %v", got, err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("step %d: %v, want %v", i+1, got[i], want[i])
		}
	}
	for list, msg := range map[string]string{
		"":            "the order is empty; give it like alice,bob,alice,bob",
		"  ":          "the order is empty",
		"alice,carol": `step 2 names "carol", which is not an actor of the scenario (alice, bob)`,
		"carol,alice": `step 1 names "carol"`,
		"alice,,bob":  `step 2 of "alice,,bob" names no actor; give the order like alice,bob,alice,bob`,
		"bob,":        `step 2 of "bob," names no actor`,
	} {
		if _, err := ParseOrder(list, actors); err == nil || !strings.HasPrefix(err.Error(), msg) {
			t.Errorf("ParseOrder(%q): %v; want %q", list, err, msg)
		}
	}
}

func TestCheckOrder(t *testing.T) {
	actors := []string{"alice", "bob"}
	if err := CheckOrder([]OrderStep{{"bob", 0}, {"alice", 0}, {"bob", 1}}, actors); err != nil {
		t.Fatalf("a followable order: %v", err)
	}
	for _, tc := range []struct {
		order []OrderStep
		msg   string
	}{
		{nil, "the order names no steps"},
		{[]OrderStep{{"alice", 0}, {"carol", 0}}, `step 2 names "carol", which is not an actor of the scenario (alice, bob)`},
		{[]OrderStep{{"alice", 1}, {"alice", 0}}, "step 1 names alice's command 2 before its command 1"},
		{[]OrderStep{{"alice", 0}, {"bob", 0}, {"alice", 0}}, "step 3 names alice's command 1 again"},
	} {
		if err := CheckOrder(tc.order, actors); err == nil || !strings.HasPrefix(err.Error(), tc.msg) {
			t.Errorf("CheckOrder(%v): %v; want %q", tc.order, err, tc.msg)
		}
	}
}

// An order that ends while an actor still has a command says how many
// steps it named, in English, and what an order must name.
func TestOrderThatEndsTooSoon(t *testing.T) {
	for n, want := range map[int]string{
		1: "the order ends after 1 step, but actor alice has another command pending at decision 2: an order must name every executing command of every actor",
		2: "the order ends after 2 steps, but actor alice has another command pending at decision 3",
	} {
		order := []OrderStep{{"bob", 0}, {"bob", 1}}[:n]
		p := NewOrderPolicy(order, []string{"alice", "bob"})
		cand := []sched.Candidate{{Ref: sched.UnitRef{Actor: 0}}, {Ref: sched.UnitRef{Actor: 1}}}
		var err error
		for step := 1; err == nil && step <= n+1; step++ {
			if _, err = p.Choose(step, cand); step <= n && err != nil {
				t.Fatalf("step %d of a followable order: %v", step, err)
			}
		}
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%d steps: %v; want %q", n, err, want)
		}
	}
}

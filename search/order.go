package search

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pginterleave/interleave/sched"
)

// OrderStep names one executing unit of an actor: Unit counts the actor's
// units that execute something (preparations excluded), from 0.
type OrderStep struct {
	Actor string
	Unit  int
}

// OrderPolicy releases units in an explicit order (an isolation-tester
// permutation, say). Preparation units go as they come. When the next named
// unit is not pending (its actor waits on a lock or has finished), the
// order cannot be followed and the attempt stops with an error.
type OrderPolicy struct {
	order []OrderStep
	names []string
	next  int
	execd map[int]int // actor -> executing units released so far
}

// NewOrderPolicy follows order; names are the actors by index.
func NewOrderPolicy(order []OrderStep, names []string) *OrderPolicy {
	return &OrderPolicy{order: order, names: names, execd: map[int]int{}}
}

// Choose implements sched.Policy.
func (p *OrderPolicy) Choose(step int, cands []sched.Candidate) ([]int, error) {
	if len(cands) == 1 && cands[0].Prepare {
		return []int{0}, nil
	}
	if p.next >= len(p.order) {
		return nil, fmt.Errorf("the order ends after %s, but actor %s has another command pending at decision %d: an order must name every executing command of every actor", steps(len(p.order)), p.names[cands[0].Ref.Actor], step)
	}
	want := p.order[p.next]
	for i, c := range cands {
		if p.names[c.Ref.Actor] == want.Actor && !c.Prepare && p.execd[c.Ref.Actor] == want.Unit {
			p.next++
			p.execd[c.Ref.Actor]++
			return []int{i}, nil
		}
	}
	return nil, fmt.Errorf("step %d of the order is %s's command %d, which is not pending at decision %d (the actor waits on a lock, has finished, or sent a different number of commands)", p.next+1, want.Actor, want.Unit+1, step)
}

// steps is "1 step", "2 steps".
func steps(n int) string {
	if n == 1 {
		return "1 step"
	}
	return fmt.Sprintf("%d steps", n)
}

// ParseOrder reads an order written inline, as the isolation tester's
// permutations are but by actor: "alice,bob,alice,bob", each name standing
// for that actor's next executing command. actors are the scenario's, in
// order. An empty list, an empty name or a name that is not an actor is an
// error that names it.
func ParseOrder(list string, actors []string) ([]OrderStep, error) {
	if strings.TrimSpace(list) == "" {
		return nil, fmt.Errorf("the order is empty; give it like %s, each name standing for its actor's next command", orderExample(actors))
	}
	next := make(map[string]int, len(actors))
	for _, a := range actors {
		next[a] = 0
	}
	names := strings.Split(list, ",")
	order := make([]OrderStep, 0, len(names))
	for i, name := range names {
		name = strings.TrimSpace(name)
		n, ok := next[name]
		switch {
		case name == "":
			return nil, fmt.Errorf("step %d of %q names no actor; give the order like %s", i+1, list, orderExample(actors))
		case !ok:
			return nil, fmt.Errorf("step %d names %q, which is not an actor of the scenario (%s)", i+1, name, strings.Join(actors, ", "))
		}
		order = append(order, OrderStep{Actor: name, Unit: n})
		next[name] = n + 1
	}
	return order, nil
}

// CheckOrder refuses an order that could never be followed: one with no
// steps, a step naming no actor of the scenario, or an actor's commands
// out of their own sequence (its command 2 before its command 1, or one
// named twice).
func CheckOrder(order []OrderStep, actors []string) error {
	if len(order) == 0 {
		return errors.New("the order names no steps")
	}
	next := make(map[string]int, len(actors))
	for _, a := range actors {
		next[a] = 0
	}
	for i, st := range order {
		n, ok := next[st.Actor]
		switch {
		case !ok:
			return fmt.Errorf("step %d names %q, which is not an actor of the scenario (%s)", i+1, st.Actor, strings.Join(actors, ", "))
		case st.Unit < n:
			return fmt.Errorf("step %d names %s's command %d again: each command runs once", i+1, st.Actor, st.Unit+1)
		case st.Unit > n:
			return fmt.Errorf("step %d names %s's command %d before its command %d: an actor's commands run in their own order", i+1, st.Actor, st.Unit+1, n+1)
		}
		next[st.Actor] = n + 1
	}
	return nil
}

// orderExample is an inline order of the first two actors.
func orderExample(actors []string) string {
	if len(actors) < 2 {
		return "alice,bob,alice,bob"
	}
	return strings.Join([]string{actors[0], actors[1], actors[0], actors[1]}, ",")
}

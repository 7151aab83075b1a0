package search

import (
	"fmt"

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
		return nil, fmt.Errorf("the order has %d steps, but actor %s has another command pending at decision %d", len(p.order), p.names[cands[0].Ref.Actor], step)
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

package search

import (
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strings"

	"github.com/pginterleave/interleave/sched"
)

// The reduction checks itself: a reduced search that exhausts its frontier
// runs a sample of the orders it skipped as equivalent before it may say
// "pass". A sampled order that fails is the search's failure; one whose
// behaviour (Report.Behaviour) no explored order had, while the order it
// was skipped from still behaves as it did, makes the search inconclusive:
// the reduction called two orders equivalent that are not. docs/search.md
// says why the default sample is small and what it can and cannot catch.

// DefaultReductionCheck is how many skipped orders an exhausted reduced
// search samples when Options.ReductionCheck is 0.
const DefaultReductionCheck = 8

// maxSkipped bounds the skipped orders kept to sample from (a reservoir),
// and maxBehaviours the behaviours remembered; both are counted in the
// frontier's memory budget's spirit: fixed, whatever the search's size.
const (
	maxSkipped    = 4096
	maxBehaviours = 1 << 16
)

// skippedOrder is an alternative the unreduced search would have queued
// and the reduction did not: the plan that takes it, and the explored
// order it was skipped from.
type skippedOrder struct {
	plan            Plan
	parent          Plan
	parentBehaviour string
	state           stateKey
	move            moveKey
}

// checkKind marks the nodes of the reduction check.
type checkKind uint8

const (
	notCheck    checkKind = iota
	checkSample           // a sampled skipped order
	checkParent           // the order a sample was skipped from, run again
	checkRandom           // an order drawn at random
	checkRepeat           // a drawn order with a new behaviour, run again
)

// ReductionCheck is what the check of a reduced search found.
type ReductionCheck struct {
	// Skipped is how many orders the reduction skipped that the check
	// could sample from (at most maxSkipped are kept); Sampled how many
	// it ran.
	Skipped, Sampled int
	// Random is how many of the Sampled were drawn at random.
	Random int
	// NewBehaviours: sampled orders whose behaviour no explored order had
	// and whose parent order repeated its own; Unrepeatable: sampled
	// orders with a new behaviour whose parent order did not repeat its
	// own (the scenario's results are not a function of the order, so
	// nothing is concluded).
	NewBehaviours, Unrepeatable int
	// First describes the first new behaviour: both orders (actors by
	// index; FirstSample and FirstParent are the plans, for a caller that
	// names the actors).
	First                    string
	FirstSample, FirstParent *Plan
}

// brokenDependence is a test-only switch (INTERLEAVE_TEST_BROKEN_DEPENDENCE=1)
// that makes every pair of events independent, so that tests can show the
// check catching a reduction that is wrong.
func brokenDependence() bool { return os.Getenv("INTERLEAVE_TEST_BROKEN_DEPENDENCE") == "1" }

// noteSkipped records the alternatives of one attempt that the reduction
// did not queue; e.mu held, after the attempt's races were processed.
func (e *explorer) noteSkipped(n *node, ds []sched.Decision, keys []stateKey, behaviour string) {
	if e.checkN <= 0 {
		return
	}
	last := n.plan.lastStep()
	for k, d := range ds {
		if d.Step <= last || len(d.Candidates) < 2 || len(d.Released) == 0 {
			continue
		}
		st := e.state(keys[k])
		for _, c := range d.Candidates {
			if c.Ref == d.Released[0] || c.Prepare {
				continue
			}
			mk := single(c.Ref.Actor)
			if st.has(mk) {
				continue
			}
			p := Plan{Victims: n.plan.Victims}
			for _, x := range ds[:k] {
				if x.Choice {
					p.Choices = append(p.Choices, Choice{Step: x.Step, Units: append([]sched.UnitRef(nil), x.Released...)})
				}
			}
			p.Choices = append(p.Choices, Choice{Step: d.Step, Units: []sched.UnitRef{c.Ref}})
			s := skippedOrder{plan: p, parent: n.plan, parentBehaviour: behaviour, state: keys[k], move: mk}
			e.check.Skipped++
			if len(e.skipped) < maxSkipped {
				e.skipped = append(e.skipped, s)
			} else if j := e.checkRand.IntN(e.check.Skipped); j < maxSkipped {
				e.skipped[j] = s // reservoir: every skipped order equally likely
			}
		}
	}
}

// queueCheck queues the sample of skipped orders once the reduced search
// has exhausted its frontier; e.mu held. It reports whether it queued any.
func (e *explorer) queueCheck() bool {
	var left []skippedOrder
	for _, s := range e.skipped {
		// An order skipped in one attempt may have been queued from the
		// same state by a later one.
		if st := e.por[s.state]; st != nil && st.has(s.move) && !brokenDependence() {
			continue
		}
		left = append(left, s)
	}
	e.skipped = nil
	// A deterministic sample: the same search samples the same orders.
	sort.SliceStable(left, func(i, j int) bool { return left[i].plan.Key() < left[j].plan.Key() })
	e.checkRand.Shuffle(len(left), func(i, j int) { left[i], left[j] = left[j], left[i] })
	if e.check.Skipped == 0 {
		return false // nothing was skipped: every order was explored
	}
	// Half the sample (rounded up) are skipped orders; the rest, and
	// whatever the skipped ones leave, are orders drawn at random: a
	// reduction that missed a dependence can hide behaviours that need two
	// or more reversals, which no single skipped alternative followed by
	// the default order reaches.
	if k := e.checkN - e.checkN/2; len(left) > k {
		left = left[:k]
	}
	for i, s := range left {
		s := s
		c := &node{plan: s.plan, depth: len(s.plan.Choices), parentSeq: -1, child: i, check: checkSample, skipped: &s}
		e.push(c)
	}
	for i := len(left); i < e.checkN; i++ {
		e.push(&node{depth: len(left) + i, parentSeq: -1, child: i, check: checkRandom})
	}
	return true
}

// checkFailure counts a sampled order that failed as the search's
// failure; e.mu held.
func (e *explorer) checkFailure(n *node, seq int) {
	s := e.sum
	s.Attempted++
	s.Completed++
	s.Failures++
	if s.FirstFailure < 0 || seq < s.FirstFailure {
		s.FirstFailure = seq
		s.FirstFailurePath = append([]int32(nil), n.path...)
	}
	s.CheckFailed = true
	if !e.opts.KeepGoing {
		e.stop(StopFailure)
	}
}

// sampledNew counts a sampled order and reports whether its behaviour is
// one no explored order had; a failing sample is the search's failure.
// e.mu held.
func (e *explorer) sampledNew(n *node, seq int, rep Report) bool {
	e.check.Sampled++
	if rep.Failed {
		e.checkFailure(n, seq)
		return false
	}
	return rep.Behaviour != "" && !e.behaviourFull && !e.behaviours[rep.Behaviour]
}

// recordCheck folds the report of a check node; e.mu held.
func (e *explorer) recordCheck(n *node, seq int, rep Report) {
	switch n.check {
	case checkSample:
		if !e.sampledNew(n, seq, rep) {
			return
		}
		// A behaviour no explored order had: run the order it was skipped
		// from again, to tell a lost class from results that differ from
		// run to run.
		sk := *n.skipped
		sk.parentBehaviour = n.skipped.parentBehaviour
		p := &node{plan: sk.parent, depth: len(sk.parent.Choices), parentSeq: -1, child: n.child, check: checkParent, skipped: &sk}
		p.sampleBehaviour = rep.Behaviour
		e.push(p)
	case checkRandom:
		e.check.Random++
		if !e.sampledNew(n, seq, rep) {
			return
		}
		p := ChoicesOf(rep.Decisions)
		p.Victims = n.plan.Victims
		e.push(&node{plan: p, depth: len(p.Choices), parentSeq: -1, child: n.child, check: checkRepeat, sampleBehaviour: rep.Behaviour})
	case checkRepeat:
		if rep.Failed || rep.Behaviour != n.sampleBehaviour {
			e.check.Unrepeatable++
			return
		}
		e.check.NewBehaviours++
		if e.check.First == "" {
			sample := n.plan
			e.check.FirstSample = &sample
			e.check.First = CheckFinding(sample, nil, nil)
		}
	case checkParent:
		if rep.Failed || rep.Behaviour != n.skipped.parentBehaviour {
			e.check.Unrepeatable++
			return
		}
		e.check.NewBehaviours++
		if e.check.First == "" {
			sample, parent := n.skipped.plan, n.skipped.parent
			e.check.FirstSample, e.check.FirstParent = &sample, &parent
			e.check.First = CheckFinding(sample, &parent, nil)
		}
	}
}

// CheckFinding says in words that the order sample behaved as no explored
// order did though the reduction called it equivalent to parent (nil: a
// sample drawn at random); names are the actors' names (nil: by index).
func CheckFinding(sample Plan, parent *Plan, names []string) string {
	if parent == nil {
		return fmt.Sprintf("the order %s, drawn at random and run twice, behaved as no explored order did", describePlan(sample, names))
	}
	return fmt.Sprintf("the order %s behaved as no explored order did; the reduction had called it equivalent to the explored order %s",
		describePlan(sample, names), describePlan(*parent, names))
}

// describePlan names a plan's choices for a person: the step and the
// command released there instead of the default.
func describePlan(p Plan, names []string) string {
	if len(p.Choices) == 0 {
		return "[the default order]"
	}
	var parts []string
	for _, c := range p.Choices {
		var us []string
		for _, u := range c.Units {
			who := fmt.Sprintf("actor %d", u.Actor)
			if u.Actor < len(names) {
				who = names[u.Actor]
			}
			us = append(us, fmt.Sprintf("%s's command %d on connection %d", who, u.Unit+1, u.Conn+1))
		}
		parts = append(parts, fmt.Sprintf("step %d: %s", c.Step, strings.Join(us, " with ")))
	}
	return "[" + strings.Join(parts, "; ") + "]"
}

func newCheckRand(seed int64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), 0x5eed_c4ec))
}

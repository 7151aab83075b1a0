package search

import (
	"hash/fnv"

	"github.com/pginterleave/interleave/sched"
)

// expand queues every plan that deviates from this schedule at a step after
// the plan's last choice.
func (e *explorer) expand(n *node, seq int, ds []sched.Decision) {
	last := n.plan.lastStep()
	child := n.nextChild
	var keys []stateKey
	if e.opts.Reduction == POR {
		// Moves queued here are known to the reduction, which would
		// otherwise queue some of them again.
		keys = stateKeys(ds, n.plan.Victims)
		for k, d := range ds {
			if len(d.Released) > 0 {
				st := e.state(keys[k])
				st.mark(moveOf(d))
			}
		}
	}
	for _, d := range ds {
		if len(d.Candidates) < 2 || d.Step <= last && keys == nil {
			continue
		}
		// Every candidate the attempt did not release: past the plan's
		// choices a reduced plan's Then and Sleep release others than
		// the first (review O's model: an unjudged attempt of such a plan
		// never queued the first candidate it passed over).
		var choices [][]sched.UnitRef
		for _, c := range d.Candidates {
			if !containsRef(d.Released, c.Ref) {
				choices = append(choices, []sched.UnitRef{c.Ref})
			}
		}
		if e.opts.Overlap == Pairs {
			for _, pr := range overlapPairs(d.Candidates) {
				choices = append(choices, []sched.UnitRef{d.Candidates[pr[0]].Ref, d.Candidates[pr[1]].Ref})
			}
		}
		for _, units := range choices {
			if keys != nil {
				mk := single(units[0].Actor)
				if len(units) == 2 {
					mk = moveKey{a: units[0].Actor, b: units[1].Actor}
				}
				st := e.state(keys[d.Step])
				if !st.mark(mk) {
					continue
				}
			}
			if e.opts.MaxDepth > 0 && n.depth+1 > e.opts.MaxDepth {
				e.sum.PrunedByDepth++
				continue
			}
			// A child is its parent's plan plus one choice at a later step:
			// distinct parents and choices give distinct plans, so no set of
			// plans seen is kept (it would grow with every attempt).
			p := n.plan.with(Choice{Step: d.Step, Units: units})
			if d.Step <= last || len(n.plan.Then) > 0 || len(n.plan.Sleep) > 0 {
				// Under reduction, an attempt it could not judge (no
				// trace: DDL ran, the schema changed) is expanded at
				// every step, its plan's own included: the reduction
				// judged those steps from other attempts, which did not
				// run what this one did (case other-ddl-after-error).
				// The state marks keep each move to one plan. A plan
				// with Then or Sleep is followed by its own prefix too:
				// its choices alone lead elsewhere.
				p = prefixPlan(ds, d.Step, n.plan.Victims).with(Choice{Step: d.Step, Units: units})
			}
			path := append(append(make([]int32, 0, len(n.path)+1), n.path...), int32(child))
			c := &node{plan: p, depth: n.depth + 1, parentSeq: seq, child: child, path: path}
			child++
			if e.bytes+c.size() > e.opts.FrontierBytes {
				e.sum.PrunedByBytes++
				continue
			}
			e.push(c)
		}
	}
	n.nextChild = child
	e.expandFaults(n, seq, ds)
}

// prefixPlan is the plan that releases what ds released before step, one
// choice per step.
func prefixPlan(ds []sched.Decision, step int, victims []int) Plan {
	p := Plan{Victims: victims}
	for _, d := range ds {
		if d.Step >= step {
			break
		}
		if len(d.Released) > 0 {
			p.Choices = append(p.Choices, Choice{Step: d.Step, Units: append([]sched.UnitRef(nil), d.Released...), Fault: d.Fault})
		}
	}
	return p
}

func (e *explorer) push(n *node) {
	e.bytes += n.size()
	e.front.push(n)
}

func (e *explorer) pop() *node {
	n := e.front.pop()
	e.bytes -= n.size()
	return n
}

func endsWithPair(p Plan) bool {
	return len(p.Choices) > 0 && len(p.Choices[len(p.Choices)-1].Units) == 2
}

// retryAllowed counts a passing try of a pair plan as an attempt, within
// the attempt budget.
func (e *explorer) retryAllowed() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stopping != "" || e.budgetSpent() {
		return false
	}
	e.sum.Retries++
	e.sum.Attempted++
	e.sum.Completed++
	return true
}

// drawnPolicy is the policy of attempt seq of a random or pct search.
func (e *explorer) drawnPolicy(seq int) sched.Policy {
	e.mu.Lock()
	k, actors := e.maxSteps, e.actors
	e.mu.Unlock()
	rng := attemptRand(e.opts.Seed, seq)
	if e.opts.Strategy == PCT {
		return newPCTPolicy(rng, actors, e.opts.Depth, k, e.opts.Overlap == Pairs)
	}
	return &randomPolicy{rng: rng, overlap: e.opts.Overlap == Pairs}
}

// scheduleSignature hashes the released units in order.
func scheduleSignature(ds []sched.Decision) uint64 {
	h := fnv.New64a()
	var b [12]byte
	for _, d := range ds {
		for _, u := range d.Released {
			putInt(b[0:], u.Actor)
			putInt(b[4:], u.Conn)
			putInt(b[8:], u.Unit)
			h.Write(b[:])
		}
		if d.Fault != sched.NoFault {
			h.Write([]byte(d.Fault))
		}
		h.Write([]byte{0xff})
	}
	return h.Sum64()
}

func putInt(b []byte, v int) {
	b[0], b[1], b[2], b[3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
}

package search

import (
	"errors"
	"fmt"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/sched"
)

// Faults are decisions like releases: a plan's choice may release a unit
// with a fault (sched.Fault), at any unit that executes something,
// including the unit the default policy would release. The search explores
// every fault kind of Options.Faults at every such unit of every schedule
// it runs, up to Options.MaxFaults faults per plan.
//
// Under partial-order reduction a fault is a move of its own: the actor's
// pending unit released with that fault. It is explored once at each state
// the reduced search reaches where the unit is pending (expandFaults), its
// event is global (it ends a session and sends its actor down another
// path: a retry, an error), the reduction's states name it (stateKeys), and
// a race whose reversal starts with it queues it with its fault (a plan's
// choice or Plan.Then). Sleep sets are off (they name units, not moves).

// errFaultsSampled: random and pct draw their schedules and have no plans
// to put a fault in.
var errFaultsSampled = errors.New("faults (Options.Search.Faults) are searched by the fifo and dfs strategies, not by random or pct")

// withFaults checks the fault options. MaxFaults' default (1) is filled in
// with the other options' defaults.
func (o *Options) withFaults() error {
	if len(o.Faults) == 0 {
		return nil
	}
	if o.Strategy.Sampled() {
		return errFaultsSampled
	}
	for _, f := range o.Faults {
		if _, err := sched.ParseFault(string(f)); err != nil {
			return err
		}
		if f == sched.NoFault {
			return errors.New("Options.Search.Faults lists an empty fault kind")
		}
	}
	if o.MaxFaults < 1 {
		return errors.New("Options.Search.MaxFaults must be at least 1 when faults are searched")
	}
	return nil
}

// Fault implements sched.FaultPolicy: the fault of the choice applied at
// step, if any.
func (pp *PlanPolicy) Fault(step int) sched.Fault {
	if pp.faultStep != step {
		return sched.NoFault
	}
	return pp.fault
}

// faults counts the faulted choices of a plan.
func (p Plan) faults() int {
	n := 0
	for _, c := range p.Choices {
		if c.Fault != sched.NoFault {
			n++
		}
	}
	for _, t := range p.Then {
		if t.Fault != sched.NoFault {
			n++
		}
	}
	return n
}

// expandFaults queues, after expand's reorderings, every plan that puts
// one more fault at a unit released after the plan's last choice: each
// fault kind at each executing candidate of each such decision; e.mu
// held.
func (e *explorer) expandFaults(n *node, seq int, ds []sched.Decision) {
	if len(e.opts.Faults) == 0 || e.opts.Reduction != POR && n.plan.faults() >= e.opts.MaxFaults {
		return
	}
	last := n.plan.lastStep()
	child := n.nextChild
	var keys []stateKey
	if e.opts.Reduction == POR {
		keys = stateKeys(ds, n.reducedVictims())
	}
	for k, d := range ds {
		if d.Step <= last || len(d.Released) != 1 {
			continue
		}
		for _, cand := range d.Candidates {
			if cand.Prepare {
				continue
			}
			for _, f := range e.opts.Faults {
				var p Plan
				if keys != nil {
					// Under reduction a fault is a move at its state, run
					// once there; the plan is the attempt's own prefix
					// (its releases past the plan's choices included).
					if faultsBefore(ds, k)+1 > e.opts.MaxFaults {
						continue
					}
					// What the unreduced search would queue here, and
					// what is queued: counted together, whatever path
					// (reduced or not) expanded the attempt.
					e.sum.Alternatives++
					if !e.state(keys[k]).mark(faulted(cand.Ref.Actor, f)) {
						continue
					}
					if e.opts.MaxDepth > 0 && choicesBefore(ds, k)+1 > e.opts.MaxDepth {
						e.sum.PrunedByDepth++
						continue
					}
					p = Plan{Choices: ChoicesOf(ds[:k]).Choices, Victims: n.reducedVictims()}
					p.Choices = append(p.Choices, Choice{Step: d.Step, Units: []sched.UnitRef{cand.Ref}, Fault: f})
				} else {
					if e.opts.MaxDepth > 0 && n.depth+1 > e.opts.MaxDepth {
						e.sum.PrunedByDepth++
						continue
					}
					p = n.plan.with(Choice{Step: d.Step, Units: []sched.UnitRef{cand.Ref}, Fault: f})
				}
				path := append(append(make([]int32, 0, len(n.path)+1), n.path...), int32(child))
				c := &node{plan: p, depth: len(p.Choices), parentSeq: seq, child: child, path: path}
				child++
				// With shards, every shard queues the same plans and
				// deal (shard.go) gives each its branches.
				if e.bytes+c.size() > e.opts.FrontierBytes {
					e.sum.PrunedByBytes++
					continue
				}
				e.push(c)
				if keys != nil {
					e.sum.Queued++
				}
			}
		}
	}
	n.nextChild = child
}

// countFaults counts an attempt that injected a fault; e.mu held.
func (e *explorer) countFaults(rep Report) {
	for _, d := range rep.Decisions {
		if d.Fault != sched.NoFault {
			e.sum.FaultAttempts++
			return
		}
	}
}

// stepFault is the fault a replaying policy applied at a step, as
// recorded (a name sched.ParseFault reads).
type stepFault struct {
	step  int
	fault string
}

// at is the fault of step: a kind this version does not know is no fault
// here (the replay's caller refuses such a recording first, CheckFaults).
func (f stepFault) at(step int) sched.Fault {
	if f.step != step || f.fault == "" {
		return sched.NoFault
	}
	k, err := sched.ParseFault(f.fault)
	if err != nil {
		return sched.NoFault
	}
	return k
}

// Fault implements sched.FaultPolicy: the recorded fault of the release
// made at step.
func (p *ExactPolicy) Fault(step int) sched.Fault { return p.fault.at(step) }

// Fault implements sched.FaultPolicy: the recorded fault of the release
// followed at step (none once the policy stopped following).
func (g *GuidedPolicy) Fault(step int) sched.Fault { return g.fault.at(step) }

// Fault implements sched.FaultPolicy: the fault of the spec applied at step.
func (p *ChoicePolicy) Fault(step int) sched.Fault { return p.fault.at(step) }

// CheckFaults reports a recorded fault this version does not know: a
// replay or minimize of it could not follow the recording.
func CheckFaults(rec *artifact.Artifact) error {
	for _, d := range rec.Schedule.Decisions {
		if _, err := sched.ParseFault(d.Fault); err != nil {
			return fmt.Errorf("%w: decision %d: %v", ErrIncompatible, d.Step, err)
		}
	}
	return nil
}

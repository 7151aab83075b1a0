package search

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/pginterleave/interleave/sched"
)

// Choice releases Units (one, or a pair) at decision Step instead of the
// default.
type Choice struct {
	Step  int
	Units []sched.UnitRef
	Fault sched.Fault // injected into the released unit (faults.go)
}

// Plan is a schedule prefix: its choices in step order. After the last
// choice the default policy decides. Victims orders the actors for
// deadlocks: when several wait on each other, PostgreSQL aborts the first of
// them in this order (nil: actor order).
//
// Then, when set, continues the plan past its last choice: at each later
// decision the next of its units is released while it is pending, and the
// default policy decides once one is not (the reduction's reversal of a
// race: the events it needs, in order; reduction.go).
//
// Sleep names units the default policy passes over while another unit is
// pending: the reduction knows them asleep where the plan's choices lead
// (sleep.go), and an attempt that releases one repeats an order explored
// from an earlier state.
type Plan struct {
	Choices []Choice
	Victims []int
	Then    []ThenStep
	Sleep   []sched.UnitRef
}

// ThenStep is a release of Plan.Then: a unit, and the fault it is released
// with, if any.
type ThenStep struct {
	Ref   sched.UnitRef
	Fault sched.Fault
}

// Depth is the number of choices.
func (p Plan) Depth() int { return len(p.Choices) }

// Key identifies the plan for deduplication.
func (p Plan) Key() string {
	var b strings.Builder
	for _, c := range p.Choices {
		b.WriteString(strconv.Itoa(c.Step))
		for _, u := range c.Units {
			fmt.Fprintf(&b, ":%d.%d.%d", u.Actor, u.Conn, u.Unit)
		}
		if c.Fault != sched.NoFault {
			b.WriteString("!" + string(c.Fault))
		}
		b.WriteByte(';')
	}
	if len(p.Victims) > 0 {
		fmt.Fprintf(&b, "victims%v", p.Victims)
	}
	if len(p.Sleep) > 0 {
		b.WriteString("sleep")
		for _, u := range p.Sleep {
			fmt.Fprintf(&b, ":%d.%d.%d", u.Actor, u.Conn, u.Unit)
		}
	}
	if len(p.Then) > 0 {
		b.WriteString("then")
		for _, t := range p.Then {
			fmt.Fprintf(&b, ":%d.%d.%d", t.Ref.Actor, t.Ref.Conn, t.Ref.Unit)
			if t.Fault != sched.NoFault {
				b.WriteString("!" + string(t.Fault))
			}
		}
	}
	return b.String()
}

func (p Plan) lastStep() int {
	if len(p.Choices) == 0 {
		return -1
	}
	return p.Choices[len(p.Choices)-1].Step
}

// with returns a new plan with c appended.
func (p Plan) with(c Choice) Plan {
	cs := make([]Choice, len(p.Choices), len(p.Choices)+1)
	copy(cs, p.Choices)
	return Plan{Choices: append(cs, c), Victims: p.Victims}
}

// ErrDiverged reports that a plan named a unit that was not pending at its
// step: the actors did not repeat the commands the plan was made from.
var ErrDiverged = errors.New("schedule diverged")

// PlanPolicy follows a plan's choices and the default policy elsewhere.
type PlanPolicy struct {
	Plan Plan
	next int
	// fault is the fault of the choice applied at faultStep (faults.go).
	fault     sched.Fault
	faultStep int
	// then is the next unit of Plan.Then to release.
	then int
}

// NewPlanPolicy returns a policy that follows p.
func NewPlanPolicy(p Plan) *PlanPolicy { return &PlanPolicy{Plan: p} }

// Choose implements sched.Policy.
func (pp *PlanPolicy) Choose(step int, cands []sched.Candidate) ([]int, error) {
	if pp.next >= len(pp.Plan.Choices) {
		return pp.follow(step, cands), nil
	}
	if pp.Plan.Choices[pp.next].Step != step {
		return []int{0}, nil
	}
	c := pp.Plan.Choices[pp.next]
	pp.next++
	pp.fault, pp.faultStep = c.Fault, step
	idx := make([]int, 0, len(c.Units))
	for _, u := range c.Units {
		found := -1
		for i, cand := range cands {
			if cand.Ref == u {
				found = i
			}
		}
		if found < 0 {
			pending := make([]string, len(cands))
			for i, c := range cands {
				pending[i] = c.Ref.String()
			}
			return nil, fmt.Errorf("%w: at step %d the plan releases unit %v, but the units pending were %s", ErrDiverged, step, u, strings.Join(pending, ", "))
		}
		idx = append(idx, found)
	}
	return idx, nil
}

// follow releases the next unit of Plan.Then when it is pending. A lone
// candidate (a preparation, released first and alone) is released without
// using it up; once the next unit is not pending among several, the rest of
// Then is dropped and the default policy decides.
func (pp *PlanPolicy) follow(step int, cands []sched.Candidate) []int {
	if pp.then >= len(pp.Plan.Then) || len(cands) == 1 && cands[0].Ref != pp.Plan.Then[pp.then].Ref {
		return []int{pp.awake(cands)}
	}
	for i, c := range cands {
		if t := pp.Plan.Then[pp.then]; c.Ref == t.Ref {
			pp.then++
			pp.fault, pp.faultStep = t.Fault, step
			return []int{i}
		}
	}
	pp.then = len(pp.Plan.Then)
	return []int{pp.awake(cands)}
}

// awake is the default policy's pick past the plan: the first candidate
// not in Plan.Sleep, the first one when all are.
func (pp *PlanPolicy) awake(cands []sched.Candidate) int {
	for i, c := range cands {
		if !containsRef(pp.Plan.Sleep, c.Ref) {
			return i
		}
	}
	return 0
}

// Complete reports whether every choice was applied.
func (pp *PlanPolicy) Complete() bool { return pp.next == len(pp.Plan.Choices) }

// ChoicesOf extracts the choices of a recorded schedule.
func ChoicesOf(ds []sched.Decision) Plan {
	var p Plan
	for _, d := range ds {
		if d.Choice {
			p.Choices = append(p.Choices, Choice{Step: d.Step, Units: append([]sched.UnitRef(nil), d.Released...), Fault: d.Fault})
		}
	}
	return p
}

// VictimRank is each actor's place in a deadlock-victim order: 0 is
// aborted first. victims lists actors first-to-abort first; actors it does
// not name follow in actor order.
func VictimRank(victims []int, actors int) []int {
	rank := make([]int, actors)
	for i := range rank {
		rank[i] = -1
	}
	next := 0
	for _, a := range victims {
		if a >= 0 && a < actors && rank[a] < 0 {
			rank[a] = next
			next++
		}
	}
	for i := range rank {
		if rank[i] < 0 {
			rank[i] = next
			next++
		}
	}
	return rank
}

// victimOrderKeeping is a victim order in which actor a is the victim of
// deadlock d and each deadlock of keep keeps its victim (Actors[0]): a
// victim comes before every other participant of its deadlock. Among the
// orders that do, it moves a as early as it can and keeps the rest of
// victims' order. ok is false when no order does: one rank per actor cannot
// abort a here and keep an earlier deadlock's victim (two deadlocks of the
// same actors with different victims).
func victimOrderKeeping(victims []int, actors int, keep []Deadlock, d Deadlock, a int) (order []int, ok bool) {
	rank := VictimRank(victims, actors)
	before := make([][]bool, actors) // before[x][y]: x must rank below y
	for i := range before {
		before[i] = make([]bool, actors)
	}
	in := make([]int, actors)
	edge := func(x, y int) {
		if x < 0 || y < 0 || x >= actors || y >= actors || x == y || before[x][y] {
			return
		}
		before[x][y] = true
		in[y]++
	}
	for _, k := range keep {
		for _, o := range k.Actors[1:] {
			edge(k.Actors[0], o)
		}
	}
	for _, o := range d.Actors {
		edge(a, o)
	}
	done := make([]bool, actors)
	for len(order) < actors {
		next := -1
		for x := 0; x < actors; x++ {
			if done[x] || in[x] > 0 {
				continue
			}
			if next < 0 || x == a || (next != a && rank[x] < rank[next]) {
				next = x
			}
		}
		if next < 0 {
			return nil, false // a cycle of constraints
		}
		done[next] = true
		order = append(order, next)
		for y := 0; y < actors; y++ {
			if before[next][y] {
				in[y]--
			}
		}
	}
	for i, x := range order {
		if x != i {
			return order, true
		}
	}
	return nil, true // the default order
}

// withVictimFirst moves actor a to the front of a victim order.
func withVictimFirst(victims []int, a, actors int) []int {
	rank := VictimRank(victims, actors)
	order := make([]int, actors)
	for i, r := range rank {
		order[r] = i
	}
	out := []int{a}
	identity := a == 0
	for _, x := range order {
		if x != a {
			identity = identity && x == len(out)
			out = append(out, x)
		}
	}
	if identity {
		return nil // the default order
	}
	return out
}

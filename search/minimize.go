package search

import (
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/sched"
)

// ChoiceSpec is a choice anchored on units rather than step numbers:
// "release Unit before Over". Removing an earlier choice shifts step numbers
// but leaves this meaning intact. A pair (overlap) releases Unit and With
// together as soon as both are pending.
type ChoiceSpec struct {
	Unit, Over sched.UnitRef
	With       *sched.UnitRef
	Fault      sched.Fault // injected into Unit (faults.go)
}

// ChoicePolicy applies choice specs in order: a spec applies at the first
// decision where its unit and the unit it overtakes are both pending; it is
// used up without a choice when its unit became the default anyway.
type ChoicePolicy struct {
	Specs []ChoiceSpec
	next  int
	fault stepFault // the fault of the spec applied last (faults.go)
}

// Choose implements sched.Policy.
func (p *ChoicePolicy) Choose(step int, cands []sched.Candidate) ([]int, error) {
	if p.next >= len(p.Specs) || (len(cands) == 1 && cands[0].Prepare) {
		return []int{0}, nil
	}
	s := p.Specs[p.next]
	ui, oi, wi := -1, -1, -1
	for i, c := range cands {
		if c.Ref == s.Unit {
			ui = i
		}
		if c.Ref == s.Over {
			oi = i
		}
		if s.With != nil && c.Ref == *s.With {
			wi = i
		}
	}
	if s.With != nil {
		if ui >= 0 && wi >= 0 {
			p.next++
			return []int{ui, wi}, nil
		}
		return []int{0}, nil
	}
	switch {
	case ui == 0:
		p.next++
		p.fault = stepFault{step, string(s.Fault)}
		return []int{0}, nil
	case ui > 0 && oi >= 0 && s.Over != s.Unit: // Over is Unit for a fault at the default
		p.next++
		p.fault = stepFault{step, string(s.Fault)}
		return []int{ui}, nil
	}
	return []int{0}, nil
}

// SpecsOf anchors the choices of a recorded schedule on units.
func SpecsOf(ds []sched.Decision) []ChoiceSpec {
	var out []ChoiceSpec
	for _, d := range ds {
		if !d.Choice {
			continue
		}
		c := ChoiceSpec{Unit: d.Released[0], Over: d.Candidates[0].Ref, Fault: d.Fault}
		if len(d.Released) == 2 {
			w := d.Released[1]
			c.With = &w
		}
		out = append(out, c)
	}
	return out
}

// HasPair reports whether some spec releases a pair.
func HasPair(specs []ChoiceSpec) bool {
	for _, s := range specs {
		if s.With != nil {
			return true
		}
	}
	return false
}

// SpecsFromArtifact anchors an artifact's recorded choices on units; names
// are the scenario's actors by index.
func SpecsFromArtifact(rec *artifact.Artifact, names []string) []ChoiceSpec {
	idx := map[string]int{}
	for i, n := range names {
		idx[n] = i
	}
	ref := func(r artifact.UnitRef) sched.UnitRef {
		return sched.UnitRef{Actor: idx[r.Actor], Conn: r.Conn, Unit: r.Unit}
	}
	var out []ChoiceSpec
	for _, c := range rec.Schedule.Choices {
		if c.Step < 0 || c.Step >= len(rec.Schedule.Decisions) {
			continue
		}
		d := rec.Schedule.Decisions[c.Step]
		if len(c.Release) == 0 || len(d.Candidates) == 0 {
			continue
		}
		spec := ChoiceSpec{Unit: ref(c.Release[0]), Over: ref(d.Candidates[0]), Fault: sched.Fault(c.Fault)}
		if len(c.Release) == 2 {
			w := ref(c.Release[1])
			spec.With = &w
		}
		out = append(out, spec)
	}
	return out
}

// DDMin reduces c while test keeps failing the same way: first with no
// choices at all, then removing chunks of halving size (delta debugging),
// then single choices until none can go. test returns the choices the run
// actually made when it failed the same way (never more than it was
// given). DDMin returns the reduced list and, when budget stopped it, the
// reason.
func DDMin(c []ChoiceSpec, test func([]ChoiceSpec) ([]ChoiceSpec, bool), budget func() string) ([]ChoiceSpec, string) {
	if len(c) == 0 {
		return c, ""
	}
	if stop := budget(); stop != "" {
		return c, stop
	}
	if got, ok := test(nil); ok {
		return got, ""
	}
	n := 2
	for len(c) >= 2 {
		reduced := false
		for i := 0; i < n && i*len(c)/n < len(c); i++ {
			lo, hi := i*len(c)/n, (i+1)*len(c)/n
			comp := append(append([]ChoiceSpec{}, c[:lo]...), c[hi:]...)
			if stop := budget(); stop != "" {
				return c, stop
			}
			if got, ok := test(comp); ok {
				c, reduced = got, true
				if n > 2 {
					n--
				}
				break
			}
		}
		if !reduced {
			if n >= len(c) {
				break
			}
			n *= 2
			if n > len(c) {
				n = len(c)
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for i := range c {
			if stop := budget(); stop != "" {
				return c, stop
			}
			comp := append(append([]ChoiceSpec{}, c[:i]...), c[i+1:]...)
			if got, ok := test(comp); ok {
				c, changed = got, true
				break
			}
		}
	}
	return c, ""
}

package engine

import (
	"strings"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/sched"
)

// validateFaults checks Options.Search.Faults and MaxFaults.
func (o *Options) validateFaults(bad func(field, msg string, args ...any) error) error {
	s := o.Search
	for _, f := range s.Faults {
		if _, err := sched.ParseFault(string(f)); err != nil || f == sched.NoFault {
			return bad("Search.Faults", "names %q; known: %s", f, strings.Join(sched.FaultNames(), ", "))
		}
	}
	if s.MaxFaults < 0 {
		return bad("Search.MaxFaults", "cannot be negative")
	}
	if len(s.Faults) > 0 && s.Strategy.Sampled() {
		return bad("Search.Faults", "are searched by the strategies fifo and dfs, not by %s", s.Strategy)
	}
	return nil
}

// faultsPrint is what the fingerprint says of faults: the kinds the
// search injected (Options.Search.Faults), or for a replay the kinds its
// schedule holds; "" when none.
func faultsPrint(o Options, ds []sched.Decision) string {
	if len(o.Search.Faults) > 0 {
		return o.Search.Faults.String()
	}
	var kinds sched.Faults
	seen := map[sched.Fault]bool{}
	for _, d := range ds {
		if d.Fault != sched.NoFault && !seen[d.Fault] {
			seen[d.Fault] = true
			kinds = append(kinds, d.Fault)
		}
	}
	return kinds.String()
}

// recordFaults puts the faults of an attempt into its artifact: each
// decision's and choice's, each unit's, and the fingerprint's note.
func (e *env) recordFaults(a *artifact.Artifact, r *attemptResult) {
	if r.Sched == nil {
		return
	}
	for i, d := range r.Sched.Decisions {
		if d.Fault == sched.NoFault || i >= len(a.Schedule.Decisions) {
			continue
		}
		a.Schedule.Decisions[i].Fault = string(d.Fault)
		for j := range a.Schedule.Choices {
			if a.Schedule.Choices[j].Step == d.Step {
				a.Schedule.Choices[j].Fault = string(d.Fault)
			}
		}
	}
	for i, u := range r.Sched.Units {
		if u.Fault != sched.NoFault && i < len(a.Units) {
			a.Units[i].Fault = string(u.Fault)
		}
	}
	if a.Fingerprint != nil {
		a.Fingerprint.Faults = faultsPrint(e.opts, r.Sched.Decisions)
	}
}

// Fault implements sched.FaultPolicy for the policy it wraps.
func (p *pausingPolicy) Fault(step int) sched.Fault {
	if fp, ok := p.Policy.(sched.FaultPolicy); ok {
		return fp.Fault(step)
	}
	return sched.NoFault
}

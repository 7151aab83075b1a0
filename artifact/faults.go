package artifact

import (
	"fmt"
	"regexp"
)

// faultName is the shape of a fault kind's name. Which names exist is the
// scheduler's list (sched.FaultKinds): a reader that meets one it does not
// know says so when it uses it; this only keeps hostile values out.
var faultName = regexp.MustCompile(`^[a-z][a-z-]{0,31}$`)

// validateFaults checks the optional fault fields: well-formed names, only
// on single releases, a choice's fault the same as its decision's, and a
// faulted decision marked as a choice.
func validateFaults(a *Artifact) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
	}
	for i, d := range a.Schedule.Decisions {
		if d.Fault == "" {
			continue
		}
		if !faultName.MatchString(d.Fault) {
			return bad("decision %d has a fault that is not a fault name", i)
		}
		if len(d.Release) != 1 {
			return bad("decision %d injects fault %s into %d units; a fault is injected into one", i, d.Fault, len(d.Release))
		}
		if !d.Choice {
			return bad("decision %d injects fault %s but is not marked as a choice", i, d.Fault)
		}
	}
	for i, c := range a.Schedule.Choices {
		if c.Fault != "" && !faultName.MatchString(c.Fault) {
			return bad("choice %d has a fault that is not a fault name", i)
		}
		// Validate has checked that c.Step is a decision's.
		if c.Fault != a.Schedule.Decisions[c.Step].Fault {
			return bad("choice %d at step %d has fault %q, its decision %q", i, c.Step, c.Fault, a.Schedule.Decisions[c.Step].Fault)
		}
	}
	for i, u := range a.Units {
		if u.Fault != "" && !faultName.MatchString(u.Fault) {
			return bad("unit %d has a fault that is not a fault name", i)
		}
	}
	if f := a.Fingerprint; f != nil && len(f.Faults) > 200 {
		return bad("the fingerprint's faults are %d bytes long", len(f.Faults))
	}
	return nil
}

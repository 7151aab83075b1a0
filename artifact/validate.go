package artifact

import (
	"fmt"
	"regexp"
)

var actorName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,47}$`)

var outcomeKinds = map[string]bool{
	"pass": true, "violation": true, "actor-error": true, "harness-error": true, "inconclusive": true, "incompatible": true,
}

// Validate checks an artifact before anything uses it: every reference
// names a known actor and unit, steps count up from zero, choices match
// decisions, texts and values are within the documented limits, and the
// wire capture decodes to its declared size and SHA-256. It reports the
// first problem.
func Validate(a *Artifact) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
	}
	if a.Scenario.Name == "" {
		return bad("scenario has no name")
	}
	if n := len(a.Scenario.Actors); n < 1 || n > 64 {
		return bad("scenario has %d actors", n)
	}
	actors := map[string]bool{}
	for _, n := range a.Scenario.Actors {
		if !actorName.MatchString(n) || actors[n] {
			return bad("actor name %q is not valid or repeated", n)
		}
		actors[n] = true
	}
	if !outcomeKinds[a.Outcome.Kind] {
		return bad("unknown outcome %q", a.Outcome.Kind)
	}
	type key struct {
		actor      string
		conn, unit int
	}
	units := map[key]bool{}
	for i, u := range a.Units {
		if !actors[u.Actor] {
			return bad("unit %d names unknown actor %q", i, u.Actor)
		}
		if u.Conn < 0 || u.Unit < 0 {
			return bad("unit %d has a negative ordinal", i)
		}
		k := key{u.Actor, u.Conn, u.Unit}
		if units[k] {
			return bad("unit %s#%d.%d appears twice", u.Actor, u.Conn, u.Unit)
		}
		units[k] = true
	}
	checkRef := func(where string, r UnitRef) error {
		if !units[key{r.Actor, r.Conn, r.Unit}] {
			return bad("%s names unit %s#%d.%d, which is not recorded", where, r.Actor, r.Conn, r.Unit)
		}
		return nil
	}
	for i, d := range a.Schedule.Decisions {
		if d.Step != i {
			return bad("decision %d has step %d", i, d.Step)
		}
		if len(d.Release) < 1 || len(d.Release) > 2 {
			return bad("decision %d releases %d units", i, len(d.Release))
		}
		for _, r := range append(append(append([]UnitRef{}, d.Release...), d.Candidates...), d.Blocked...) {
			if err := checkRef(fmt.Sprintf("decision %d", i), r); err != nil {
				return err
			}
		}
	}
	last := -1
	for i, c := range a.Schedule.Choices {
		if c.Step <= last || c.Step >= len(a.Schedule.Decisions) {
			return bad("choice %d has step %d out of order or range", i, c.Step)
		}
		last = c.Step
		if !a.Schedule.Decisions[c.Step].Choice {
			return bad("choice %d at step %d is not marked as a choice in the decisions", i, c.Step)
		}
		for _, r := range c.Release {
			if err := checkRef(fmt.Sprintf("choice %d", i), r); err != nil {
				return err
			}
		}
	}
	if err := validateFaults(a); err != nil {
		return err
	}
	for i, r := range a.Actors {
		if !actors[r.Actor] {
			return bad("actor result %d names unknown actor %q", i, r.Actor)
		}
		if len(r.Value) > MaxActorValue || len(r.Error) > MaxText {
			return bad("actor %s's result is over the limits (%s for a value, %s for an error)", r.Actor, sizeName(MaxActorValue), sizeName(MaxText))
		}
	}
	if len(a.Outcome.Message) > MaxText {
		return bad("the outcome's message is %d bytes, over the limit of %s", len(a.Outcome.Message), sizeName(MaxText))
	}
	if err := validateExplanation(a.Explanation, actors, len(a.Schedule.Decisions)); err != nil {
		return bad("explanation: %v", err)
	}
	if a.Capture != nil {
		if err := a.Capture.Check(); err != nil {
			return err
		}
	}
	return nil
}

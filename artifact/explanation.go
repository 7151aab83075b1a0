package artifact

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pginterleave/interleave/explain"
)

// Bounds of an artifact's explanation. explain writes far less: a cycle is
// as long as the transactions in it, a critical pair is looked for with a
// few reversals, and two isolation levels are run.
const (
	MaxCycle  = 64
	MaxTrials = 64
	MaxLevels = 4
	// MaxLevelErrors bounds the serialization failures and deadlocks kept
	// for one level run.
	MaxLevelErrors = 64
	MaxNotes       = 32
)

var sqlState = regexp.MustCompile(`^[0-9A-Z]{5}$`)

// ValidateExplanation checks x as Validate checks a's explanation: a
// writer calls it before it keeps x in a, so that what it writes can be
// read back.
func ValidateExplanation(x *explain.Record, a *Artifact) error {
	actors := map[string]bool{}
	for _, n := range a.Scenario.Actors {
		actors[n] = true
	}
	if err := validateExplanation(x, actors, len(a.Schedule.Decisions)); err != nil {
		return fmt.Errorf("%w: explanation: %v", ErrInvalid, err)
	}
	return nil
}

// validateExplanation checks an untrusted explanation: every value one
// explain gives (names, dependency kinds, fix classes, levels), each
// transaction and actor one the artifact has, each step one of its
// decisions, and every list and text within the bounds above.
func validateExplanation(x *explain.Record, actors map[string]bool, steps int) error {
	if x == nil {
		return nil
	}
	text := func(what, s string) error {
		if len(s) > MaxText {
			return fmt.Errorf("%s is %d bytes, over the limit of %s", what, len(s), sizeName(MaxText))
		}
		return nil
	}
	step := func(what string, n int, optional bool) error {
		if (optional && n == 0) || (n >= 0 && n < steps) {
			return nil
		}
		return fmt.Errorf("%s is step %d; the schedule has %d decisions", what, n, steps)
	}
	actor := func(what, name string) error {
		if !actors[name] {
			return fmt.Errorf("%s names unknown actor %q", what, name)
		}
		return nil
	}
	a := x.Anomaly
	if a.Name != "" && !slices.Contains(explain.Names, a.Name) {
		return fmt.Errorf("unknown anomaly %q", a.Name)
	}
	if a.Adya != "" && !slices.Contains(explain.AdyaNames, a.Adya) {
		return fmt.Errorf("unknown phenomenon %q", a.Adya)
	}
	if (a.Name == "") != (a.Adya == "") || (a.Name == "") != (len(x.Cycle) == 0) {
		return fmt.Errorf("the anomaly %q (%q) does not match a cycle of %d dependencies", a.Name, a.Adya, len(x.Cycle))
	}
	if err := text("the anomaly's sentence", a.Sentence); err != nil {
		return err
	}
	if len(x.Cycle) > MaxCycle {
		return fmt.Errorf("the cycle has %d dependencies, over the limit of %d", len(x.Cycle), MaxCycle)
	}
	for i, e := range x.Cycle {
		what := fmt.Sprintf("dependency %d", i)
		if !slices.Contains(explain.DepKinds, e.Kind) {
			return fmt.Errorf("%s has unknown kind %q", what, e.Kind)
		}
		for _, tx := range []string{e.From, e.To} {
			if err := transaction(what, tx, actors); err != nil {
				return err
			}
		}
		for _, s := range []string{e.Relation, e.Key} {
			if err := text(what, s); err != nil {
				return err
			}
		}
		for _, err := range []error{step(what, e.FromStep, false), step(what, e.ToStep, false), step(what, e.CommitStep, true), step(what, e.SnapshotStep, true)} {
			if err != nil {
				return err
			}
		}
	}
	if x.Unknown < 0 {
		return fmt.Errorf("unknown commands: %d", x.Unknown)
	}
	if p := x.CriticalPair; p != nil {
		if len(p.Tried) > MaxTrials {
			return fmt.Errorf("the critical pair's search lists %d reversals, over the limit of %d", len(p.Tried), MaxTrials)
		}
		for i, t := range p.Tried {
			what := fmt.Sprintf("reversal %d", i)
			if !outcomeKinds[t.Outcome] {
				return fmt.Errorf("%s has unknown outcome %q", what, t.Outcome)
			}
			for _, err := range []error{step(what, t.First, false), step(what, t.Second, false), text(what, t.Message)} {
				if err != nil {
					return err
				}
			}
		}
		if p.Found {
			for _, err := range []error{step("the critical pair", p.First, false), step("the critical pair", p.Second, false),
				actor("the critical pair", p.FirstActor), actor("the critical pair", p.SecondActor),
				text("the critical pair", p.FirstSQL), text("the critical pair", p.SecondSQL)} {
				if err != nil {
					return err
				}
			}
		}
	}
	if len(x.Levels) > MaxLevels {
		return fmt.Errorf("%d level runs, over the limit of %d", len(x.Levels), MaxLevels)
	}
	for _, l := range x.Levels {
		what := "the run at " + strconv.Quote(l.Level)
		if !slices.Contains(explain.LevelNames, l.Level) {
			return fmt.Errorf("%s: unknown isolation level", what)
		}
		if !outcomeKinds[l.Outcome] {
			return fmt.Errorf("%s has unknown outcome %q", what, l.Outcome)
		}
		if err := text(what, l.Message); err != nil {
			return err
		}
		if len(l.Errors) > MaxLevelErrors {
			return fmt.Errorf("%s lists %d errors, over the limit of %d", what, len(l.Errors), MaxLevelErrors)
		}
		for _, e := range l.Errors {
			if !sqlState.MatchString(e.SQLState) || e.Step < -1 {
				return fmt.Errorf("%s lists an error with SQLSTATE %q at step %d", what, e.SQLState, e.Step)
			}
			for _, err := range []error{actor(what, e.Actor), text(what, e.SQL), text(what, e.Message)} {
				if err != nil {
					return err
				}
			}
		}
	}
	if f := x.Fix; f != nil {
		if !slices.Contains(explain.FixClasses, f.Class) {
			return fmt.Errorf("unknown fix class %q", f.Class)
		}
		if err := text("the fix's advice", f.Advice); err != nil {
			return err
		}
	}
	if len(x.Notes) > MaxNotes {
		return fmt.Errorf("%d notes, over the limit of %d", len(x.Notes), MaxNotes)
	}
	for _, n := range x.Notes {
		if err := text("a note", n); err != nil {
			return err
		}
	}
	return nil
}

// transaction checks a transaction's id: "actor:n", n from 1.
func transaction(what, id string, actors map[string]bool) error {
	name, n, ok := strings.Cut(id, ":")
	k, err := strconv.Atoi(n)
	if !ok || err != nil || k < 1 || !actors[name] || strconv.Itoa(k) != n {
		return fmt.Errorf("%s names transaction %q, not one of the artifact's actors (actor:n)", what, id)
	}
	return nil
}

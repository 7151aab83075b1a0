package interleave

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/sched"
)

// MinimizeOptions configure Minimize.
type MinimizeOptions struct {
	Options
	// MaxAttempts and MaxTime bound the reduction (0: no limit).
	MaxAttempts int
	MaxTime     time.Duration
	// Source names the minimized artifact in the new record.
	Source string
}

// MinimizeResult is the outcome of Minimize.
type MinimizeResult struct {
	Scenario       string
	Outcome        Outcome // the failure (violation or actor error) when reduced
	Message        string
	Differences    []string
	Before, After  int // choices
	Attempts       int
	LocallyMinimal bool
	StopReason     string // why the reduction stopped early, when it did
	Artifact       *artifact.Artifact
	Saved          string
}

// ExitCode is the process exit code: the failure's code when the reduced
// schedule still fails.
func (r *MinimizeResult) ExitCode() int { return r.Outcome.ExitCode() }

// choiceSpec is a choice anchored on units rather than step numbers:
// "release unit before over". Removing an earlier choice shifts step numbers
// but leaves this meaning intact. A pair (overlap) releases unit and with
// together as soon as both are pending.
type choiceSpec struct {
	unit, over sched.UnitRef
	with       *sched.UnitRef
}

// choicePolicy applies choice specs in order: a spec applies at the first
// decision where its unit and the unit it overtakes are both pending; it is
// used up without a choice when its unit became the default anyway.
type choicePolicy struct {
	specs []choiceSpec
	next  int
}

func (p *choicePolicy) Choose(_ int, cands []sched.Candidate) ([]int, error) {
	if p.next >= len(p.specs) || (len(cands) == 1 && cands[0].Prepare) {
		return []int{0}, nil
	}
	s := p.specs[p.next]
	ui, oi, wi := -1, -1, -1
	for i, c := range cands {
		if c.Ref == s.unit {
			ui = i
		}
		if c.Ref == s.over {
			oi = i
		}
		if s.with != nil && c.Ref == *s.with {
			wi = i
		}
	}
	if s.with != nil {
		if ui >= 0 && wi >= 0 {
			p.next++
			return []int{ui, wi}, nil
		}
		return []int{0}, nil
	}
	switch {
	case ui == 0:
		p.next++
		return []int{0}, nil
	case ui > 0 && oi >= 0:
		p.next++
		return []int{ui}, nil
	}
	return []int{0}, nil
}

func specsOf(ds []sched.Decision) []choiceSpec {
	var out []choiceSpec
	for _, d := range ds {
		if !d.Choice {
			continue
		}
		c := choiceSpec{unit: d.Released[0], over: d.Candidates[0].Ref}
		if len(d.Released) == 2 {
			w := d.Released[1]
			c.with = &w
		}
		out = append(out, c)
	}
	return out
}

func hasPair(specs []choiceSpec) bool {
	for _, s := range specs {
		if s.with != nil {
			return true
		}
	}
	return false
}

func specsFromArtifact(rec *artifact.Artifact, names []string) []choiceSpec {
	idx := map[string]int{}
	for i, n := range names {
		idx[n] = i
	}
	ref := func(r artifact.UnitRef) sched.UnitRef {
		return sched.UnitRef{Actor: idx[r.Actor], Conn: r.Conn, Unit: r.Unit}
	}
	var out []choiceSpec
	for _, c := range rec.Schedule.Choices {
		d := rec.Schedule.Decisions[c.Step]
		if len(c.Release) == 0 || len(d.Candidates) == 0 {
			continue
		}
		spec := choiceSpec{unit: ref(c.Release[0]), over: ref(d.Candidates[0])}
		if len(c.Release) == 2 {
			w := ref(c.Release[1])
			spec.with = &w
		}
		out = append(out, spec)
	}
	return out
}

// Minimize verifies a failure by exact replay, then removes choices (delta
// debugging: chunks, then single choices) while the same failure still
// happens, and says whether the result is locally minimal.
func Minimize(ctx context.Context, sc Scenario, rec *artifact.Artifact, opts MinimizeOptions) (*MinimizeResult, error) {
	res := &MinimizeResult{Scenario: sc.Name, Before: len(rec.Schedule.Choices)}
	if !rec.Outcome.Failed() {
		return nil, fmt.Errorf("the artifact records outcome %q; only a violation or an actor error can be minimized", rec.Outcome.Kind)
	}
	pairs := hasPair(specsFromArtifact(rec, sc.actorNames()))
	repeat := 1
	if pairs {
		repeat = pairTries * 2 // PostgreSQL decides a pair's interleaving
	}
	verify, err := Replay(ctx, sc, rec, ReplayOptions{Options: withoutOut(opts.Options), Repeat: repeat})
	if err != nil {
		return nil, err
	}
	res.Attempts = verify.Attempts
	if verify.Outcome == OutcomeIncompatible {
		res.Outcome, res.Message, res.Differences = OutcomeIncompatible, "exact replay of the recording is incompatible; minimize needs an exact replay", verify.Differences
		return res, nil
	}
	if !verify.SameFailure {
		res.Outcome = OutcomeIncompatible
		res.Message = fmt.Sprintf("exact replay did not reproduce the recorded failure (outcome %s: %s)", verify.Outcome, verify.Message)
		return res, nil
	}

	o := opts.Options.withDefaults()
	fp := *rec.Fingerprint
	e, err := openEnvWith(ctx, o, 1, &fp)
	if err != nil {
		return nil, err
	}
	defer e.closeRecorded()
	w, err := e.newWorker(ctx)
	if err != nil {
		return nil, err
	}
	defer w.close(context.Background())

	start := time.Now()
	best := verify.Artifact
	budget := func() string {
		switch {
		case ctx.Err() != nil:
			return "cancelled"
		case opts.MaxAttempts > 0 && res.Attempts >= opts.MaxAttempts:
			return fmt.Sprintf("attempt budget of %d spent", opts.MaxAttempts)
		case opts.MaxTime > 0 && time.Since(start) >= opts.MaxTime:
			return fmt.Sprintf("time budget of %v spent", opts.MaxTime)
		}
		return ""
	}
	// test runs the candidate; on the same failure it returns the choices
	// the run actually made (never more than the candidate's).
	test := func(cand []choiceSpec) ([]choiceSpec, bool) {
		tries := 1
		if hasPair(cand) {
			tries = pairTries // a pair that passes once may fail the next time
		}
		for i := 0; i < tries; i++ {
			res.Attempts++
			r := w.run(ctx, &sc, &choicePolicy{specs: cand})
			if r.Outcome.failed() && artifact.FailureFingerprint(string(r.Outcome), r.Message) == rec.Outcome.FailureFingerprint {
				best = e.recordAttempt(&sc, "minimize", r)
				return specsOf(r.Sched.Decisions), true
			}
			if budget() != "" {
				break
			}
		}
		return nil, false
	}
	cur := specsFromArtifact(rec, sc.actorNames())
	cur, res.StopReason = ddmin(cur, test, budget)
	res.After = len(cur)
	res.LocallyMinimal = res.StopReason == ""
	if hasPair(cur) && res.LocallyMinimal {
		res.StopReason = fmt.Sprintf("a pair release remains (candidates that keep a pair were tried up to %d times each; PostgreSQL may interleave a pair differently another time)", pairTries)
	}
	if rec.Limits.Connections == "multi-producer" && len(cur) > 0 {
		// Choices name connection ordinals, which a pool may hand out in a
		// different order: a candidate that did not apply proves nothing.
		res.LocallyMinimal = false
		res.StopReason = "under the multi-producer profile a choice that did not reproduce may only have named another connection; not proven locally minimal"
	}
	res.Outcome = Outcome(best.Outcome.Kind)
	res.Message = best.Outcome.Message
	best.Mode = "minimize"
	best.Minimize = &artifact.Minimize{Source: opts.Source, ChoicesBefore: res.Before, ChoicesAfter: res.After,
		Attempts: res.Attempts, LocallyMinimal: res.LocallyMinimal, StopReason: res.StopReason}
	res.Artifact = best
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	if o.Out != "" {
		if err := artifact.Write(o.Out, best, o.Force); err != nil {
			return res, fmt.Errorf("save the artifact: %w", err)
		}
		res.Saved = o.Out
	}
	return res, nil
}

// pairTries is how many times minimize runs a candidate that contains a
// pair before deciding it does not fail.
const pairTries = 3

func withoutOut(o Options) Options {
	o.Out = ""
	return o
}

// ddmin reduces c while test keeps failing the same way: first with no
// choices at all, then removing chunks of halving size, then single choices
// until none can go. It returns the reduced list and, when a budget stopped
// it, the reason.
func ddmin(c []choiceSpec, test func([]choiceSpec) ([]choiceSpec, bool), budget func() string) ([]choiceSpec, string) {
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
			comp := append(append([]choiceSpec{}, c[:lo]...), c[hi:]...)
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
			comp := append(append([]choiceSpec{}, c[:i]...), c[i+1:]...)
			if got, ok := test(comp); ok {
				c, changed = got, true
				break
			}
		}
	}
	return c, ""
}

// Print writes the human summary.
func (r *MinimizeResult) Print(w io.Writer) {
	if r.Outcome == OutcomeIncompatible {
		fmt.Fprintf(w, "%s: cannot minimize: %s.\n", r.Scenario, r.Message)
		for _, d := range r.Differences {
			fmt.Fprintf(w, "- %s\n", d)
		}
		return
	}
	tail := "locally-minimal (removing any one remaining choice loses the failure)"
	if !r.LocallyMinimal {
		tail = "stopped: " + r.StopReason + "; not proven locally minimal"
	} else if r.StopReason != "" {
		tail += "; " + r.StopReason
	}
	fmt.Fprintf(w, "Reduced %d choices to %d in %d attempts; %s.\n", r.Before, r.After, r.Attempts, tail)
	if r.Message != "" {
		fmt.Fprintln(w, r.Message)
	}
	if r.Artifact != nil && r.Artifact.Outcome.Failed() {
		printOrder(w, r.Artifact, r.Saved)
	}
	if r.Saved != "" {
		fmt.Fprintf(w, "Saved %s\n", r.Saved)
	}
}

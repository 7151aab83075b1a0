package engine

import (
	"context"
	"fmt"
	"github.com/pginterleave/interleave/sched"
	"time"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/search"
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

// Minimize verifies a failure by exact replay, then removes choices (delta
// debugging: chunks, then single choices) while the same failure still
// happens, and says whether the result is locally minimal.
func Minimize(ctx context.Context, sc Scenario, rec *artifact.Artifact, opts MinimizeOptions) (*MinimizeResult, error) {
	res := &MinimizeResult{Scenario: sc.Name, Before: len(rec.Schedule.Choices)}
	if !rec.Outcome.Failed() {
		return nil, fmt.Errorf("the artifact records outcome %q; only a violation or an actor error can be minimized", rec.Outcome.Kind)
	}
	if err := checkOut(opts.Output); err != nil {
		return nil, err
	}
	pairs := search.HasPair(search.SpecsFromArtifact(rec, sc.ActorNames()))
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

	o, err := opts.Options.withDefaults()
	if err != nil {
		return nil, err
	}
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
	test := func(cand []search.ChoiceSpec) ([]search.ChoiceSpec, bool) {
		tries := 1
		if search.HasPair(cand) {
			tries = pairTries // a pair that passes once may fail the next time
		}
		for i := 0; i < tries; i++ {
			res.Attempts++
			r := w.runPlanned(ctx, &sc, func() sched.Policy { return &search.ChoicePolicy{Specs: cand} }, victimsOf(rec, sc.ActorNames()))
			if r.Outcome.Failed() && artifact.FailureFingerprint(string(r.Outcome), r.Message) == rec.Outcome.FailureFingerprint {
				best = e.recordAttempt(&sc, "minimize", r)
				return search.SpecsOf(r.Sched.Decisions), true
			}
			if budget() != "" {
				break
			}
		}
		return nil, false
	}
	cur := search.SpecsFromArtifact(rec, sc.ActorNames())
	cur, res.StopReason = search.DDMin(cur, test, budget)
	res.After = len(cur)
	res.LocallyMinimal = res.StopReason == ""
	if search.HasPair(cur) && res.LocallyMinimal {
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
	w.nameAnomaly(ctx, &sc, best) // the minimized order's own steps; none when it cannot be named
	res.Artifact = best
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	if o.Output.Out != "" {
		if err := artifact.Write(o.Output.Out, best, o.Output.Force); err != nil {
			return res, fmt.Errorf("save the artifact: %w", err)
		}
		res.Saved = o.Output.Out
	}
	return res, nil
}

// pairTries is how many times minimize runs a candidate that contains a
// pair before deciding it does not fail.
const pairTries = 3

func withoutOut(o Options) Options {
	o.Output.Out = ""
	return o
}

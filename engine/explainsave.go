package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/explain"
)

// nameAnomaly names the anomaly of the failure a records, on w, a worker
// the caller already has: the static part of Explain (what each command
// touched, asked of PostgreSQL on a database after the scenario's setup;
// the dependency graph and its shortest cycle), then, unless
// Options.Output.Reversals is negative, the critical pair (at most that
// many attempts of the order with two dependent commands swapped).
// The result goes into a.Explanation. When it cannot be named, a is left
// without one and the sentence returned says why (Result.AnomalyError):
// the failure, its outcome and its exit code do not depend on it.
func (w *worker) nameAnomaly(ctx context.Context, sc *Scenario, a *artifact.Artifact) string {
	if a == nil || !a.Outcome.Failed() {
		return ""
	}
	a.Explanation = nil
	if ctx.Err() != nil {
		return "the failure's anomaly was not named: the run was stopped first"
	}
	ctx, cancel := context.WithTimeout(ctx, w.env.opts.AttemptTimeout)
	defer cancel()
	x, rec, err := w.staticExplanation(ctx, sc, a)
	if err != nil {
		return fmt.Sprintf("the failure's anomaly could not be named: %v", err)
	}
	a.Explanation = rec
	if f := recordedFaults(a); f != "" {
		// A reversal runs without the fault, so whatever it shows is not
		// about the failure.
		with := *rec
		with.Notes = append(append([]string(nil), with.Notes...), "the failing order injected a fault ("+f+"), which reversals do not repeat: no critical pair was looked for")
		if with.Anomaly.Name == "" {
			// Not "a check and a write in separate transactions": what
			// the order lacks is the fault's effect on the client.
			with.Anomaly.Sentence = explain.NoCycle + ": the order breaks the invariant with the fault it injected (" + f + "): the client did not learn what the server did with its command, and what it did next broke the rule (docs/faults.md)"
		}
		if artifact.ValidateExplanation(&with, a) == nil {
			a.Explanation = &with
		}
		return ""
	}
	if n := w.env.opts.Output.Reversals; n > 0 && ctx.Err() == nil {
		// The critical pair: a few attempts, each the failing order with
		// two dependent commands swapped. Only evidence: a failure to find
		// one changes nothing but the record.
		with := *rec
		with.CriticalPair = w.criticalPair(ctx, sc, a, x, n)
		if !with.CriticalPair.Found {
			with.Notes = append(append([]string(nil), with.Notes...), noPairNote(with.CriticalPair))
		}
		if ctx.Err() == nil && artifact.ValidateExplanation(&with, a) == nil {
			a.Explanation = &with
		}
	}
	return ""
}

// staticExplanation is the record nameAnomaly keeps, checked as a reader
// of the artifact will check it.
func (w *worker) staticExplanation(ctx context.Context, sc *Scenario, a *artifact.Artifact) (x *explain.Explanation, rec *explain.Record, err error) {
	defer func() {
		if p := recover(); p != nil {
			x, rec, err = nil, nil, fmt.Errorf("panic: %v", p)
		}
	}()
	cmds, err := w.explainCommands(ctx, sc, a)
	if err != nil {
		return nil, nil, err
	}
	x = explain.Analyze(sc.Name, a.Outcome.Message, cmds, "")
	rec = x.Record()
	if err := artifact.ValidateExplanation(rec, a); err != nil {
		return nil, nil, err
	}
	return x, rec, nil
}

// recordedFaults lists the faults a's schedule injected ("lost-reply at
// step 12"), or "" when none.
func recordedFaults(a *artifact.Artifact) string {
	var out []string
	for _, d := range a.Schedule.Decisions {
		if d.Fault != "" {
			out = append(out, fmt.Sprintf("%s at step %d", d.Fault, d.Step))
		}
	}
	return strings.Join(out, ", ")
}

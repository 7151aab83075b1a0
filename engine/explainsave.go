package engine

import (
	"context"
	"fmt"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/explain"
)

// nameAnomaly names the anomaly of the failure a records, on w, a worker
// the caller already has: the static part of Explain (what each command
// touched, asked of PostgreSQL on a database after the scenario's setup;
// the dependency graph and its shortest cycle), with no order run again.
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
	rec, err := w.staticExplanation(ctx, sc, a)
	if err != nil {
		return fmt.Sprintf("the failure's anomaly could not be named: %v", err)
	}
	a.Explanation = rec
	return ""
}

// staticExplanation is the record nameAnomaly keeps, checked as a reader
// of the artifact will check it.
func (w *worker) staticExplanation(ctx context.Context, sc *Scenario, a *artifact.Artifact) (rec *explain.Record, err error) {
	defer func() {
		if p := recover(); p != nil {
			rec, err = nil, fmt.Errorf("panic: %v", p)
		}
	}()
	cmds, err := w.explainCommands(ctx, sc, a)
	if err != nil {
		return nil, err
	}
	rec = explain.Analyze(sc.Name, a.Outcome.Message, cmds, "").Record()
	if err := artifact.ValidateExplanation(rec, a); err != nil {
		return nil, err
	}
	return rec, nil
}

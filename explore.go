package interleave

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/sched"
	"github.com/pginterleave/interleave/search"
)

// Result is the outcome of Explore or RunOnce.
type Result struct {
	Scenario string
	Outcome  Outcome
	Message  string
	// Summary describes the search (nil for RunOnce).
	Summary *search.Summary
	// Artifact is the first failing attempt, or for RunOnce the attempt.
	Artifact *artifact.Artifact
	// Saved is the path the artifact was written to, if any.
	Saved         string
	seed          int64
	shard, shards int
}

// ExitCode is the process exit code for the result.
func (r *Result) ExitCode() int { return r.Outcome.ExitCode() }

// Explore searches the orders of sc's units for one that breaks the
// invariant, within opts' budgets.
func Explore(ctx context.Context, sc Scenario, opts Options) (*Result, error) {
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	o := opts.withDefaults()
	if err := o.validate(); err != nil {
		return nil, err
	}
	e, err := openEnv(ctx, o, o.Workers)
	if err != nil {
		return nil, err
	}
	res, err := e.explore(ctx, &sc)
	cleanup := e.closeRecorded()
	if res != nil && res.Artifact != nil {
		res.Artifact.Cleanup = cleanup
	}
	if err != nil {
		return res, err
	}
	return res, res.save(o)
}

func (e *env) explore(ctx context.Context, sc *Scenario) (*Result, error) {
	// Worker 0 starts now; the others once the first attempt is in, while
	// worker 0 goes on (a search that fails at once never creates them).
	w0, err := e.newWorker(ctx)
	if err != nil {
		return nil, err
	}
	workers := make([]*worker, e.opts.Workers)
	workerErrs := make([]error, e.opts.Workers)
	workers[0] = w0
	defer func() {
		for _, w := range workers {
			if w != nil {
				w.close(context.Background())
			}
		}
	}()
	getWorker := func(ctx context.Context, wi int) (*worker, error) {
		if workers[wi] == nil && workerErrs[wi] == nil {
			workers[wi], workerErrs[wi] = e.newWorker(ctx)
		}
		return workers[wi], workerErrs[wi]
	}
	progress := newProgressLine(e.opts)
	defer progress.finish()

	var mu sync.Mutex
	var first *attemptResult
	firstSeq := -1
	var lastHarness *attemptResult
	sum, err := search.Explore(ctx, search.Options{
		Strategy:      e.opts.Strategy,
		Seed:          e.opts.Seed,
		Depth:         e.opts.Depth,
		MaxAttempts:   e.opts.MaxAttempts,
		MaxTime:       e.opts.MaxTime,
		MaxDepth:      e.opts.MaxDepth,
		KeepGoing:     e.opts.KeepGoing,
		Workers:       len(workers),
		Overlap:       e.opts.Overlap == "pairs",
		FrontierBytes: e.opts.FrontierBytes,
		Shard:         e.opts.Shard,
		Shards:        e.opts.Shards,
		Progress:      progress.update,
		StartWorker: func(ctx context.Context, wi int) error {
			_, err := getWorker(ctx, wi)
			return err
		},
	}, func(ctx context.Context, wi, seq int, plan search.Plan, policy sched.Policy) search.Report {
		w, err := getWorker(ctx, wi)
		if err != nil {
			return search.Report{Stop: fmt.Errorf("start worker %d: %w", wi, err)}
		}
		r := w.run(ctx, sc, policy)
		rep := search.Report{Failed: r.Outcome.failed(), Inconclusive: r.Outcome == OutcomeInconclusive}
		if r.Sched != nil {
			rep.Decisions = r.Sched.Decisions
		}
		switch {
		case errors.Is(r.SchedErr, search.ErrDiverged):
			rep.Diverged, rep.Failed = true, false
		case r.Outcome == OutcomeHarnessError:
			rep.Stop = errors.New(r.Message)
			mu.Lock()
			lastHarness = r
			mu.Unlock()
		}
		uncounted := seq == 0 && e.opts.Shards > 1 && e.opts.Shard != 1 && e.opts.Strategy != "random" && e.opts.Strategy != "pct"
		if rep.Failed && !uncounted { // another shard reports the first schedule
			mu.Lock()
			if firstSeq < 0 || seq < firstSeq {
				first, firstSeq = r, seq
			}
			mu.Unlock()
		}
		return rep
	})
	if err != nil {
		return nil, err
	}
	res := &Result{Scenario: sc.Name, Summary: sum, shard: e.opts.Shard, shards: e.opts.Shards}
	if e.opts.Strategy == "random" || e.opts.Strategy == "pct" {
		res.seed = e.opts.Seed
	}
	switch {
	case first != nil:
		res.Outcome, res.Message = first.Outcome, first.Message
		res.Artifact = e.recordAttempt(sc, "explore", first)
		res.Artifact.Search = searchRecord(e.opts, sum, firstSeq)
	case sum.StopReason == search.StopHarness:
		res.Outcome, res.Message = OutcomeHarnessError, sum.StopErr.Error()
		if lastHarness != nil {
			res.Artifact = e.recordAttempt(sc, "explore", lastHarness)
			res.Artifact.Search = searchRecord(e.opts, sum, sum.Attempted-1)
		}
	case sum.StopReason == search.StopCancelled:
		return res, ctx.Err()
	case !sum.Exhausted():
		res.Outcome = OutcomeInconclusive
		res.Message = fmt.Sprintf("%s after %d attempts with %d prefixes pending: not every order was explored", sum.StopReason, sum.Attempted, sum.Pending)
	case sum.Inconclusive > 0 || sum.Diverged > 0:
		res.Outcome = OutcomeInconclusive
		res.Message = fmt.Sprintf("%d of %d attempts could not be judged (%d inconclusive, %d diverged from their plan)", sum.Inconclusive+sum.Diverged, sum.Attempted, sum.Inconclusive, sum.Diverged)
	default:
		res.Outcome = OutcomePass
	}
	return res, nil
}

func searchRecord(o Options, s *search.Summary, seq int) *artifact.Search {
	return &artifact.Search{
		Strategy: s.Strategy, Seed: o.Seed, Attempt: seq, Attempted: s.Attempted, Completed: s.Completed,
		Violations: s.Failures, Pending: s.Pending, MaxDepth: s.MaxDepth, StopReason: s.StopReason,
		ElapsedMillis: s.Elapsed.Milliseconds(),
	}
}

// RunOnce runs a single attempt in the default (FIFO) order.
func RunOnce(ctx context.Context, sc Scenario, opts Options) (*Result, error) {
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	o := opts.withDefaults()
	if err := o.validate(); err != nil {
		return nil, err
	}
	e, err := openEnv(ctx, o, 1)
	if err != nil {
		return nil, err
	}
	var res *Result
	w, err := e.newWorker(ctx)
	if err == nil {
		var policy sched.Policy
		if len(o.Order) > 0 {
			policy = newOrderPolicy(o.Order, sc.actorNames())
		}
		r := w.run(ctx, &sc, policy)
		w.close(context.Background())
		res = &Result{Scenario: sc.Name, Outcome: r.Outcome, Message: r.Message, Artifact: e.recordAttempt(&sc, "run", r)}
	}
	cleanup := e.closeRecorded()
	if err != nil {
		return nil, err
	}
	res.Artifact.Cleanup = cleanup
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	if res.Outcome.failed() {
		return res, res.save(o)
	}
	return res, nil
}

// closeRecorded shuts the server side down and says what was cleaned up.
func (e *env) closeRecorded() artifact.Cleanup {
	err := e.close()
	c := artifact.Cleanup{DatabasesDropped: err == nil, ServerStopped: err == nil}
	if err != nil {
		c.Error = err.Error()
	}
	return c
}

// save writes the failing artifact when Out is set.
func (r *Result) save(o Options) error {
	if o.Out == "" || r.Artifact == nil || !(r.Outcome.failed() || r.Outcome == OutcomeHarnessError) {
		return nil
	}
	if err := artifact.Write(o.Out, r.Artifact, o.Force); err != nil {
		return fmt.Errorf("save the artifact: %w", err)
	}
	r.Saved = o.Out
	return nil
}

// Print writes the human summary.
func (r *Result) Print(w io.Writer) {
	s := r.Summary
	verdict := map[Outcome]string{
		OutcomeViolation: "failure", OutcomeActorError: "failure (an actor returned an error)",
		OutcomeHarnessError: "error", OutcomeInconclusive: "inconclusive", OutcomePass: "pass",
	}[r.Outcome]
	if s != nil {
		tail := verdict
		switch {
		case r.Outcome == OutcomePass && s.PrunedByDepth > 0:
			tail = fmt.Sprintf("pass: every order with at most %d choices was explored (%d longer prefixes not explored)", s.MaxDepth, s.PrunedByDepth)
		case r.Outcome == OutcomePass:
			tail = "frontier exhausted: every order was explored; pass"
		case r.Outcome == OutcomeInconclusive:
			tail = "inconclusive: " + r.Message
		}
		fmt.Fprintf(w, "%s: %d attempted, %d completed; violations: %d; %s.\n", r.Scenario, s.Attempted, s.Completed, s.Failures, tail)
		strategy := s.Strategy
		if r.Artifact != nil && r.Artifact.Search != nil && (s.Strategy == "random" || s.Strategy == "pct") {
			strategy += fmt.Sprintf(" (seed %d)", r.Artifact.Search.Seed)
		} else if r.seed != 0 {
			strategy += fmt.Sprintf(" (seed %d)", r.seed)
		}
		fmt.Fprintf(w, "Search: %s; pending prefixes: %d; maximum attempted depth: %d.\n", strategy, s.Pending, s.MaxDepth)
		if s.Inconclusive > 0 || s.Diverged > 0 {
			fmt.Fprintf(w, "Not judged: %d inconclusive, %d diverged from their plan.\n", s.Inconclusive, s.Diverged)
		}
	} else {
		fmt.Fprintf(w, "%s: one attempt in the default order; %s.\n", r.Scenario, verdict)
	}
	if a := r.Artifact; a != nil {
		c := a.ReleaseCounts()
		exec, prep, switches := c.Executing, c.Preparations, c.Switches
		line := fmt.Sprintf("Recorded release units: %d; actor switches: %d.", exec, switches)
		if prep > 0 {
			line = fmt.Sprintf("Recorded release units: %d (plus %d statement preparations); actor switches: %d.", exec, prep, switches)
		}
		fmt.Fprintln(w, line)
	}
	if r.Message != "" && r.Outcome != OutcomeInconclusive {
		fmt.Fprintln(w, strings.TrimSpace(r.Message))
	}
	if r.Artifact != nil && r.Outcome.failed() {
		printOrder(w, r.Artifact, r.Saved)
	}
	if r.Saved != "" {
		fmt.Fprintf(w, "Saved %s\n", r.Saved)
	}
}

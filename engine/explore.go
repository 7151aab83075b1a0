package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/pgserver"
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
	Saved string
	// Planned: a single attempt followed an explicit order (Search.Order).
	Planned bool
	// Seed is the seed of a random or pct search (0 otherwise); Shard and
	// Shards say which part of the space a sharded search explored.
	Seed          int64
	Shard, Shards int
	// Notes are sentences about how the run went that change how to read
	// it (deadlock victims left to PostgreSQL, say).
	Notes []string
	// AnomalyError says why a failure's anomaly could not be named
	// (Artifact.Explanation is then nil); the outcome does not depend on it.
	AnomalyError string
}

// ExitCode is the process exit code for the result.
// A search stopped by a harness error (the server died, a reset failed)
// exits 2 even when it found failures before (--keep-going): it did not
// run its budget, and a script must not take it for a finished search.
func (r *Result) ExitCode() int {
	if r.Summary != nil && r.Summary.StopReason == search.StopHarness {
		return ExitError
	}
	return r.Outcome.ExitCode()
}

// Explore searches the orders of sc's units for one that breaks the
// invariant, within opts' budgets.
func Explore(ctx context.Context, sc Scenario, opts Options) (*Result, error) {
	o, err := begin(&sc, opts)
	if err != nil {
		return nil, err
	}
	e, err := openEnv(ctx, o, o.Search.Workers)
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
	so := e.opts.Search
	// Partial-order reduction needs each actor to be one sequence of units:
	// a connection pool's goroutines are not.
	reduce := so.Reduction == search.POR && !so.Strategy.Sampled() && e.opts.Proxy.Connections != MultiProducer
	if so.Reduction == search.POR && !reduce {
		so.Reduction = search.NoReduction
	}
	workers := make([]*worker, so.Workers)
	workerErrs := make([]error, so.Workers)
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
	var mu sync.Mutex
	var first *attemptResult
	firstSeq := -1
	var opening *attemptResult // the first attempt (the default order), kept for a passing artifact
	var lastHarness *attemptResult
	sum, err := search.Explore(ctx, so, search.Hooks{
		Progress:       e.opts.Output.OnProgress,
		NoVictimChoice: e.noVictimChoice.Load,
		StartWorker: func(ctx context.Context, wi int) error {
			_, err := getWorker(ctx, wi)
			return err
		},
	}, func(ctx context.Context, wi, seq int, plan search.Plan, policy sched.Policy) search.Report {
		w, err := getWorker(ctx, wi)
		if err != nil {
			return search.Report{Stop: fmt.Errorf("start worker %d: %w", wi, err)}
		}
		r := w.run(ctx, sc, policy, plan.Victims)
		if seq == 0 && e.opts.Output.Out != "" {
			mu.Lock()
			opening = r
			mu.Unlock()
		}
		if ctx.Err() != nil {
			// Stopped from outside (a signal, the caller's deadline):
			// what the attempt saw is the stopping, not the scenario.
			return search.Report{Inconclusive: true}
		}
		rep := search.Report{Failed: r.Outcome.Failed(), Inconclusive: r.Outcome == OutcomeInconclusive,
			Deadlocks: deadlocks(r), Actors: len(sc.Actors)}
		if r.Sched != nil {
			rep.Decisions = r.Sched.Decisions
		}
		interfered := errors.Is(r.SchedErr, sched.ErrInterference)
		// A sampled strategy takes whatever victim (and grant order)
		// PostgreSQL chose; a systematic one keys what it learns by the
		// victim order and takes the queue order for the grant order.
		notPlanned := r.WrongVictim != "" && r.Outcome != OutcomeHarnessError && !so.Strategy.Sampled()
		if (reduce || so.CountClasses) && r.Outcome != OutcomeHarnessError && !errors.Is(r.SchedErr, search.ErrDiverged) && !interfered && !notPlanned {
			rep.Trace = w.reductionTrace(ctx, r)
			if reduce && so.ReductionCheck >= 0 && (r.Outcome == OutcomePass || r.Outcome.Failed()) {
				rep.Behaviour = w.behaviour(ctx, r)
			}
		}
		switch {
		case errors.Is(r.SchedErr, search.ErrDiverged), interfered:
			// An attempt another attempt interfered with runs again, alone
			// (env.exclusive), as a plan that could not be followed does.
			rep.Diverged, rep.Failed, rep.Inconclusive = true, false, false
			rep.DivergedAt = r.SchedErr.Error()
		case notPlanned:
			// The victim was not the planned one: the attempt is not the
			// plan's, and runs again with longer deadlock timeouts.
			rep.Diverged, rep.Failed, rep.Inconclusive = true, false, false
			rep.DivergedAt, rep.WrongVictim = r.WrongVictim, true
			rep.Deadlocks = nil
		case r.Outcome == OutcomeHarnessError:
			rep.Stop = errors.New(r.Message)
			mu.Lock()
			lastHarness = r
			mu.Unlock()
		}
		// Waits granted out of queue order: run again; if they are every
		// time, that is how PostgreSQL runs this order (engine/queue.go). A
		// failure is kept: PostgreSQL ran that order.
		rep.Unsettled = r.OutOfQueue != "" && !so.Strategy.Sampled() && !rep.Failed && !rep.Diverged
		uncounted := seq == 0 && so.Shards > 1 && so.Shard != 1 && !so.Strategy.Sampled()
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
	if sum.StopReason != search.StopHarness && ctx.Err() == nil {
		if terr := redactError(e.secrets(), e.diedDuringSearch()); terr != nil {
			sum.StopReason, sum.StopErr = search.StopHarness, terr
		}
	}
	res := &Result{Scenario: sc.Name, Summary: sum, Shard: so.Shard, Shards: so.Shards}
	if e.exclusive.Load() && so.Workers > 1 {
		res.Notes = append(res.Notes, ExclusiveNote)
	}
	if n, ok := e.victimNote.Load().(string); ok && n != "" {
		res.Notes = append(res.Notes, n)
	}
	if so.Strategy.Sampled() {
		res.Seed = so.Seed
	}
	switch {
	case first != nil:
		res.Outcome, res.Message = first.Outcome, first.Message
		res.Artifact = e.recordAttempt(sc, "explore", first)
		res.Artifact.Search = searchRecord(e.opts, sum, firstSeq)
		res.AnomalyError = w0.nameAnomaly(ctx, sc, res.Artifact)
	case sum.StopReason == search.StopHarness:
		res.Outcome, res.Message = OutcomeHarnessError, sum.StopErr.Error()
		if lastHarness != nil {
			res.Artifact = e.recordAttempt(sc, "explore", lastHarness)
			res.Artifact.Search = searchRecord(e.opts, sum, sum.Attempted-1)
		}
	case sum.StopReason == search.StopCancelled:
		res.Outcome = OutcomeInconclusive
		res.Message = fmt.Sprintf("the search was stopped after %d attempts, before it explored every order", sum.Attempted)
		return res, ctx.Err()
	case !sum.Exhausted():
		res.Outcome = OutcomeInconclusive
		res.Message = fmt.Sprintf("%s after %d attempts with %d prefixes pending: not every order was explored", sum.StopReason, sum.Attempted, sum.Pending)
		if u := unjudged(sum); u != "" {
			// A budget stop says too what was run and not judged.
			res.Message += "; " + u
		}
	case sum.Inconclusive > 0 || sum.Diverged > 0 || sum.VictimSequences > 0:
		res.Outcome = OutcomeInconclusive
		res.Message = unjudged(sum)
	case sum.Check.NewBehaviours > 0:
		// The reduction called an order equivalent to an explored one, and
		// it was not: the pass would rest on a wrong dependence.
		res.Outcome = OutcomeInconclusive
		first := sum.Check.First
		if c := sum.Check; c.FirstSample != nil {
			first = search.CheckFinding(*c.FirstSample, c.FirstParent, sc.ActorNames())
		}
		res.Message = fmt.Sprintf("the reduction's check found %d of its %d sampled orders behaving as no explored order did: %s; explore without the reduction to see every order, and please report the scenario",
			sum.Check.NewBehaviours, sum.Check.Sampled, first)
	default:
		res.Outcome = OutcomePass
	}
	if res.Artifact == nil && opening != nil && res.Outcome == OutcomePass {
		// A pass is kept too (--out): the default order's attempt, with
		// what the search explored.
		res.Artifact = e.recordAttempt(sc, "explore", opening)
		res.Artifact.Outcome = outcomeRecord(OutcomePass, "")
		res.Artifact.Search = searchRecord(e.opts, sum, 0)
	}
	return res, nil
}

func searchRecord(o Options, s *search.Summary, seq int) *artifact.Search {
	return &artifact.Search{
		Strategy: s.Strategy.String(), Seed: o.Search.Seed, Attempt: seq, Attempted: s.Attempted, Completed: s.Completed,
		Violations: s.Failures, Pending: s.Pending, MaxDepth: s.MaxDepth, StopReason: s.StopReason,
		ElapsedMillis: s.Elapsed.Milliseconds(),
	}
}

// RunOnce runs a single attempt in the default (FIFO) order.
func RunOnce(ctx context.Context, sc Scenario, opts Options) (*Result, error) {
	o, err := begin(&sc, opts)
	if err != nil {
		return nil, err
	}
	if len(o.Search.Order) > 0 {
		if err := search.CheckOrder(o.Search.Order, sc.ActorNames()); err != nil {
			return nil, err
		}
	}
	e, err := openEnv(ctx, o, 1)
	if err != nil {
		return nil, err
	}
	var res *Result
	w, err := e.newWorker(ctx)
	if err == nil {
		var policy sched.Policy
		if len(o.Search.Order) > 0 {
			policy = search.NewOrderPolicy(o.Search.Order, sc.ActorNames())
		}
		r := w.run(ctx, &sc, policy, nil)
		res = &Result{Scenario: sc.Name, Outcome: r.Outcome, Message: r.Message, Artifact: e.recordAttempt(&sc, "run", r), Planned: len(o.Search.Order) > 0}
		res.AnomalyError = w.nameAnomaly(ctx, &sc, res.Artifact)
		w.close(context.Background())
	}
	cleanup := e.closeRecorded()
	if err != nil {
		return nil, err
	}
	res.Artifact.Cleanup = cleanup
	if ctx.Err() != nil {
		res.Outcome, res.Message = OutcomeInconclusive, "the attempt was stopped before it finished"
		return res, ctx.Err()
	}
	return res, res.save(o)
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

// save writes the artifact when Out is set.
func (r *Result) save(o Options) error {
	if o.Output.Out == "" || r.Artifact == nil {
		return nil
	}
	if err := artifact.Write(o.Output.Out, r.Artifact, o.Output.Force); err != nil {
		return fmt.Errorf("save the artifact: %w", err)
	}
	r.Saved = o.Output.Out
	return nil
}

// begin checks what a run is given before any work starts: the scenario,
// the options (with their defaults filled in), the output path.
func begin(sc *Scenario, opts Options) (Options, error) {
	if err := sc.Validate(); err != nil {
		return opts, err
	}
	o, err := opts.withDefaults()
	if err != nil {
		return o, err
	}
	return o, checkOut(o.Output)
}

// checkOut refuses, before any work starts, an output path that could not
// be written at the end: an existing file without Force, a directory, a
// missing parent directory.
func checkOut(o OutputOptions) error {
	if o.Out == "" {
		return nil
	}
	return artifact.CheckWritable(o.Out, o.Force)
}

// unjudged says why a search that explored its frontier is not a pass:
// attempts that could not be judged, plans that could not be followed.
func unjudged(sum *search.Summary) string {
	var parts []string
	if sum.Inconclusive > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d attempts could not be judged (an attempt deadline, or a lock held by a session that is not an actor)", sum.Inconclusive, sum.Attempted))
	}
	if sum.Diverged > 0 {
		p := fmt.Sprintf("%d plans could not be followed even when run %d times, so the orders they name were not explored", sum.Diverged, 1+search.DivergeRetries)
		if sum.FirstDivergence != "" {
			p += " (the first: " + sum.FirstDivergence + ")"
		}
		parts = append(parts, p)
	}
	if sum.VictimSequences > 0 {
		parts = append(parts, fmt.Sprintf("%d choices of a deadlock victim could not be explored: an attempt deadlocked more than once, and one victim order per attempt cannot change a later victim and keep an earlier one (the first: %s)", sum.VictimSequences, sum.FirstVictimSequence))
	}
	return strings.Join(parts, "; ")
}

// diedDuringSearch is the end of the log of a server Interleave manages
// that is gone when the search ends; nil while it answers. The backends of
// a killed postmaster may run the last attempts to their end (kept
// sessions outlive it for a moment) and pass them: no verdict rests on a
// server that died under it. A new connection asks the postmaster itself.
func (e *env) diedDuringSearch() error {
	if err := pgserver.Terminated(e.server); err != nil || !pgserver.Managed(e.server) {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, e.server.ConnString(e.server.MaintenanceDB()))
	if err == nil {
		c.Close(ctx)
		return nil
	}
	return pgserver.TerminatedWithin(e.server, 5*time.Second)
}

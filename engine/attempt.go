package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pginterleave/interleave/fingerprint"
	"github.com/pginterleave/interleave/netproxy"
	"github.com/pginterleave/interleave/pgserver"
	"github.com/pginterleave/interleave/sched"
	"github.com/pginterleave/interleave/search"
)

// actorGrace is how long actors get to return after an attempt is aborted
// and their connections are closed.
const actorGrace = 3 * time.Second

// attemptResult is everything one attempt produced.
type attemptResult struct {
	Outcome   Outcome
	Message   string // failure message, or why the attempt could not be judged
	Sched     *sched.Result
	SchedErr  error
	Actors    []ActorResult
	Abandoned []string // actors that did not return after cancellation
	Capture   []byte   // raw capture, kept for failures (or every attempt with capture "all")
	Started   time.Time
	Duration  time.Duration
	Victims   []int // the deadlock-victim order the attempt ran with
	// WrongVictim says which deadlock aborted another actor than the
	// victim order planned (victims.go); empty when none did.
	WrongVictim string
	// OutOfQueue says which waits for one lock ended in another order
	// than they queued (queue.go); empty when none did.
	OutOfQueue string
	// InvariantSQL is what the invariant ran on the control connection;
	// InvariantKnown that it was all seen (observePlacement).
	InvariantSQL   []string
	InvariantKnown bool
}

// serverTerminated is pgserver.Terminated after an attempt ended with
// outcome. When it did not pass and the postmaster is gone (its backends
// may still answer for a moment) or the server no longer answers on the
// control connection, the server may have been killed a moment ago, its
// exit not yet reaped: then it waits for that (briefly) rather than blame
// an actor, the setup or the invariant.
func (w *worker) serverTerminated(outcome Outcome) error {
	// The end of a dying server's log quotes statements, PASSWORD
	// literals and configured secrets included.
	return redactError(w.env.secrets(), w.serverTerminatedRaw(outcome))
}

func (w *worker) serverTerminatedRaw(outcome Outcome) error {
	if err := pgserver.Terminated(w.env.server); err != nil || outcome == OutcomePass {
		return err
	}
	if pgserver.Gone(w.env.server) {
		return pgserver.TerminatedWithin(w.env.server, 5*time.Second)
	}
	if w.control != nil && !w.control.IsClosed() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := w.control.Ping(ctx)
		cancel()
		var pgErr *pgconn.PgError
		answered := errors.As(err, &pgErr) && pgErr.Severity != "FATAL" && pgErr.Severity != "PANIC"
		if err == nil || answered { // the server answered, and is not going away
			return nil
		}
	}
	return pgserver.TerminatedWithin(w.env.server, 5*time.Second)
}

// run executes one attempt of sc under policy on the worker's database.
func (w *worker) run(ctx context.Context, sc *Scenario, policy sched.Policy, victims []int) *attemptResult {
	res := &attemptResult{Started: time.Now()}

	defer w.scrub(res) // no password, nothing over the limits, on any path (runs last)
	defer func() {
		res.Duration = time.Since(res.Started)
		if err := w.serverTerminated(res.Outcome); err != nil {
			// The server died: whatever the actors or the setup saw is
			// its consequence, not their fault.
			res.Outcome, res.Message = OutcomeHarnessError, err.Error()
		}
	}()
	if w.env.exclusive.Load() {
		w.env.serial.Lock()
		defer w.env.serial.Unlock()
	} else {
		w.env.serial.RLock()
		defer w.env.serial.RUnlock()
	}
	actx, cancel := context.WithTimeout(ctx, w.env.opts.AttemptTimeout)
	defer cancel()

	if err := w.reset(actx); err != nil {
		return res.harness("reset the attempt database: %v", err)
	}
	if sc.Setup != nil {
		if err := protect("setup", func() error { return sc.Setup(actx, w.control) }); err != nil {
			return res.harness("setup failed: %v", err)
		}
	}
	if w.printDB || w.checkSetup != nil {
		w.printDB = false
		p, err := fingerprint.Database(actx, w.control)
		if err != nil {
			return res.harness("%v", err)
		}
		w.env.noteDatabase(p)
		if lines, err := fingerprint.SchemaLines(actx, w.control); err == nil {
			w.setupSchema, w.schemaKnown = lines, true
		}
		if w.checkSetup != nil {
			if err := w.checkSetup(p); err != nil {
				res.Outcome, res.Message, res.SchedErr = OutcomeIncompatible, err.Error(), err
				return res
			}
		}
	}
	w.capture.Reset()
	at := sched.New(sched.Config{
		Actors:        sc.ActorNames(),
		Policy:        policy,
		Monitor:       w.monitor,
		MultiProducer: w.env.opts.Proxy.Connections == MultiProducer,
		Barrier:       w.schedBarrier(actx),
		Settle:        w.env.opts.Proxy.Settle,
	})
	tag, keepSessions := w.sessionTag(actx)
	proxies := make([]*netproxy.Proxy, len(sc.Actors))
	defer func() {
		for _, p := range proxies {
			if p != nil {
				p.Close()
			}
		}
		w.sweepSessions()
	}()
	rank := search.VictimRank(victims, len(sc.Actors))
	for i := range sc.Actors {
		var sessions *netproxy.Sessions
		if keepSessions {
			sessions = w.sessionsFor(i)
		}
		p, err := netproxy.Listen(netproxy.Config{Dial: w.env.dialer(), Gate: w.gateFor(at.Gate(i), i), Profile: w.env.opts.Proxy.Protocol, Recorder: w.capture.Recorder(i), MaxMessage: w.env.opts.Proxy.MaxMessage,
			OptionsFor: w.withStartOptions(w.victimOptions(actx, rank[i], sc.Actors[i].Name)), Sessions: sessions, SessionTag: tag})
		if err != nil {
			return res.harness("%v", err)
		}
		proxies[i] = p
	}

	schedDone := make(chan error, 1)
	go func() { schedDone <- at.Run(actx) }()
	actorCtx, cancelActors := context.WithCancel(actx)
	defer cancelActors()
	res.Victims = victims
	// Each actor's goroutine writes its result under mu, and only until it
	// is given up: an abandoned actor that returns later must not write
	// what the judge, the redaction and the recorder are reading.
	var mu sync.Mutex
	results := make([]ActorResult, len(sc.Actors))
	gaveUp := make([]bool, len(sc.Actors))
	returned := make([]chan struct{}, len(sc.Actors))
	for i := range sc.Actors {
		returned[i] = make(chan struct{})
		results[i] = ActorResult{Actor: sc.Actors[i].Name}
		go func(i int) {
			defer close(returned[i])
			a := sc.Actors[i]
			var v any
			err := protect("actor "+a.Name, func() (err error) {
				v, err = a.Run(actorCtx, w.actorConnString(proxies[i].Addr().Port))
				return err
			})
			mu.Lock()
			if !gaveUp[i] {
				results[i] = ActorResult{Actor: a.Name, Value: v, Err: err}
			}
			mu.Unlock()
			at.ActorDone(i)
			proxies[i].CloseConns()
		}(i)
	}

	schedErr := <-schedDone
	if schedErr == nil && actx.Err() != nil {
		schedErr = fmt.Errorf("%w: the attempt deadline (%v) passed as the actors finished; their errors may be its consequence", sched.ErrInconclusive, w.env.opts.AttemptTimeout)
	}
	if schedErr != nil {
		cancelActors()
		for _, p := range proxies {
			p.CloseConns()
		}
	}
	grace := time.NewTimer(actorGrace)
	defer grace.Stop()
	for i, ch := range returned {
		select {
		case <-ch:
		case <-grace.C:
			mu.Lock()
			gaveUp[i] = true
			results[i].Err = fmt.Errorf("actor %s did not return within %v of the attempt's end and was abandoned", sc.Actors[i].Name, actorGrace)
			mu.Unlock()
			res.Abandoned = append(res.Abandoned, sc.Actors[i].Name)
			grace.Reset(0)
		}
	}
	mu.Lock()
	res.Actors = append([]ActorResult(nil), results...)
	mu.Unlock()
	res.Sched = at.Result()
	res.SchedErr = schedErr
	if !w.env.noVictimChoice.Load() {
		why, n := wrongVictims(res.Sched, rank)
		res.WrongVictim = why
		w.timers.note(n, why != "")
	}
	res.OutOfQueue = outOfQueue(res.Sched)
	if errors.Is(schedErr, sched.ErrInterference) {
		w.env.exclusive.Store(true) // the next attempts run alone
	}
	w.judge(actx, sc, res, at)
	for _, p := range proxies {
		p.Close() // every stream's close is in the capture before it is kept
	}
	if mode := w.env.opts.Capture.Mode; mode == CaptureAll || (mode != CaptureOff && (res.Outcome.Failed() || res.Outcome == OutcomeHarnessError)) {
		res.Capture = append([]byte(nil), w.capture.Bytes()...)
	}
	return res
}

// judge decides the outcome once every actor has returned (or been given up).
func (w *worker) judge(ctx context.Context, sc *Scenario, res *attemptResult, at *sched.Attempt) {
	if len(res.Abandoned) > 0 && res.SchedErr == nil {
		res.SchedErr = fmt.Errorf("%w: actors %v did not return", sched.ErrInconclusive, res.Abandoned)
	}
	if err := res.SchedErr; err != nil {
		res.Message = err.Error()
		switch {
		case errors.Is(err, sched.ErrInconclusive):
			res.Outcome = OutcomeInconclusive
		default:
			res.Outcome = OutcomeHarnessError
		}
		if len(res.Abandoned) > 0 {
			res.Message += fmt.Sprintf(" (actors %v ignored cancellation and were abandoned)", res.Abandoned)
		}
		return
	}
	if err := at.LaneError(); err != nil {
		res.Outcome, res.Message = OutcomeHarnessError, err.Error()
		return
	}
	for _, r := range res.Actors {
		// An actor whose host failed (a dead Node process) did not fail
		// on its own: that is the harness's error, whatever the scenario
		// does with actor errors.
		if r.Err != nil && errors.Is(r.Err, ErrHarness) {
			res.Outcome = OutcomeHarnessError
			res.Message = fmt.Sprintf("actor %s could not run: %v", r.Actor, r.Err)
			return
		}
	}
	if !sc.HandleActorErrors {
		for _, r := range res.Actors {
			if r.Err != nil {
				res.Outcome = OutcomeActorError
				res.Message = fmt.Sprintf("actor %s failed: %v", r.Actor, r.Err)
				return
			}
		}
	}
	var err error
	res.InvariantSQL, res.InvariantKnown, err = w.tap.invariantSQL(func() error {
		return protect("invariant", func() error { return sc.Invariant(ctx, w.control, res.Actors) })
	})
	res.InvariantKnown = res.InvariantKnown && !sc.InvariantConnects
	var pe *panicError
	switch {
	case errors.As(err, &pe), errors.Is(err, ErrHarness):
		res.Outcome, res.Message = OutcomeHarnessError, err.Error()
	case err != nil && ctx.Err() != nil:
		res.Outcome, res.Message = OutcomeInconclusive, fmt.Sprintf("the invariant did not finish before the attempt deadline: %v", err)
	case err != nil:
		res.Outcome, res.Message = OutcomeViolation, err.Error()
	default:
		res.Outcome = OutcomePass
	}
}

func (r *attemptResult) harness(format string, args ...any) *attemptResult {
	r.Outcome = OutcomeHarnessError
	r.Message = fmt.Sprintf(format, args...)
	return r
}

// ErrHarness marks an Invariant error that is not a violation: the
// invariant could not judge the attempt (a query failed, a host process
// died). Wrap it (fmt.Errorf("...: %w", interleave.ErrHarness)); the attempt
// then ends as a harness error (exit 2) instead of a violation.
var ErrHarness = errors.New("the invariant could not judge the attempt")

type panicError struct {
	what  string
	value any
	stack []byte
}

func (p *panicError) Error() string {
	return fmt.Sprintf("%s panicked: %v\n%s", p.what, p.value, p.stack)
}

// protect runs f, turning a panic into an error.
func protect(what string, f func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &panicError{what: what, value: v, stack: debug.Stack()}
		}
	}()
	return f()
}

// schedBarrier is the worker's barrier as the scheduler takes it (a nil
// interface when there is none).
func (w *worker) schedBarrier(ctx context.Context) sched.Barrier {
	if b := w.barrierFor(ctx); b != nil {
		return b
	}
	return nil
}

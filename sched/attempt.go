package sched

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"
	"time"

	"github.com/pginterleave/interleave/netproxy"
)

// Config is one attempt's scheduling set-up.
type Config struct {
	Actors  []string
	Policy  Policy      // nil releases candidate 0: the default order
	Monitor LockMonitor // required
	// MultiProducer lets an actor drive several connections at once (pools).
	// Quiescence then also needs Settle without events from the actor.
	MultiProducer bool
	Settle        time.Duration
	// Barrier, when set, makes a pair start together (overlap pairs).
	Barrier Barrier
	// PollFirst is how long after a release the first lock poll waits for the
	// unit to complete on its own; PollMax caps the backoff between polls.
	PollFirst time.Duration
	PollMax   time.Duration
}

// Barrier holds a pair's two statements at a lock inside PostgreSQL until
// both are seen waiting on it, then lets them go at once: the statements
// take their snapshots after their relation locks, so they start together
// however the operating system schedules the two backends.
type Barrier interface {
	// Hold takes the barrier; ok is false when it cannot (the pair is then
	// written back to back, as without a barrier). pid is the backend
	// holding it.
	Hold(ctx context.Context) (pid uint32, ok bool)
	// Release lets the waiting statements go.
	Release(ctx context.Context)
}

// Typed errors callers branch on.
var (
	// ErrInconclusive: the attempt could not be judged (deadline, a lock held
	// by a session that is not an actor).
	ErrInconclusive = errors.New("inconclusive")
	// ErrInterference: a session outside the attempt decided when an actor
	// could go on (a safe-snapshot wait on another worker's serializable
	// transaction), so the attempt's order is not the scheduler's alone.
	// It comes wrapped together with ErrInconclusive.
	ErrInterference = errors.New("a session outside the attempt took part")
	// ErrSecondProducer: an actor used two connections at once under the
	// single-producer profile.
	ErrSecondProducer = netproxy.ErrSecondProducer
)

// Attempt schedules one attempt. Proxies call its gates from their
// goroutines; Run is the decider. All state is guarded by mu.
type Attempt struct {
	cfg   Config
	start time.Time
	wake  chan struct{}

	mu        sync.Mutex
	actors    []actorState
	lanes     []*lane
	units     []*UnitRecord
	decisions []Decision
	cancels   []CancelEvent
	epoch     uint64
	aborted   bool
	abortErr  error
	laneErr   error // first connection failure the proxy reported
	// changed, when not nil, is closed by the next poke: a connection
	// waiting for another to close (awaitProducer) sleeps on it. Made
	// only when someone waits.
	changed chan struct{}
	// terminating are lanes released with fault Terminate, for the
	// decider to carry out (faults.go).
	terminating []*lane
}

type actorState struct {
	name      string
	done      bool
	lastEvent time.Time
	starting  map[int]bool // streams in start-up: the actor is busy connecting
}

type laneState uint8

const (
	laneIdle laneState = iota
	lanePending
	laneExecuting
)

type lane struct {
	a       *Attempt
	info    LaneInfo
	state   laneState
	unit    *UnitRecord
	pending *netproxy.Unit // while pending: the proxy's unit (valid until Await returns)
	release chan error
	closed  bool
	// produced: the lane has sent at least one unit.
	produced bool
	// blockedAt is the epoch at which PostgreSQL confirmed the executing
	// unit waits on another actor; valid while it equals a.epoch.
	blockedAt uint64
	waiting   bool // the current unit has a recorded, unfinished lock wait
	// blockers are the backends PostgreSQL last reported the executing
	// unit waiting for (pg_blocking_pids), valid with blockedAt.
	blockers []uint32
	// done is the lane's last completed unit while its held locks are to
	// be read (it left a transaction open).
	done *UnitRecord
	// gone: the lane's backend has exited (its session's locks released);
	// endingSince is when the decider first waited for it.
	gone        bool
	endingSince time.Time
}

// New prepares an attempt for cfg.Actors.
func New(cfg Config) *Attempt {
	if cfg.Policy == nil {
		cfg.Policy = defaultOrder{}
	}
	if cfg.PollFirst == 0 {
		cfg.PollFirst = 400 * time.Microsecond
	}
	if cfg.PollMax == 0 {
		cfg.PollMax = 5 * time.Millisecond
	}
	if cfg.MultiProducer && cfg.Settle == 0 {
		cfg.Settle = 5 * time.Millisecond
	}
	a := &Attempt{cfg: cfg, start: time.Now(), wake: make(chan struct{}, 1), epoch: 1}
	for _, n := range cfg.Actors {
		a.actors = append(a.actors, actorState{name: n, lastEvent: a.start, starting: map[int]bool{}})
	}
	return a
}

// Gate returns the netproxy.Gate for actor i.
func (a *Attempt) Gate(i int) netproxy.Gate { return actorGate{a, i} }

func (a *Attempt) since() time.Duration { return time.Since(a.start) }

// poke wakes the decider; callers hold mu.
func (a *Attempt) poke() {
	a.epoch++
	if a.changed != nil {
		close(a.changed)
		a.changed = nil
	}
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// ActorDone records that actor i's code returned.
func (a *Attempt) ActorDone(i int) {
	a.mu.Lock()
	a.actors[i].done = true
	a.poke()
	a.mu.Unlock()
}

// Abort stops the attempt: pending units are refused with err and Run
// returns it.
func (a *Attempt) Abort(err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.abortLocked(err)
}

func (a *Attempt) abortLocked(err error) {
	if a.aborted {
		return
	}
	a.aborted, a.abortErr = true, err
	for _, l := range a.lanes {
		if l.state == lanePending {
			l.release <- err
			l.state = laneIdle
		}
	}
	a.poke()
}

// Result returns the record. Call it after Run has returned.
func (a *Attempt) Result() *Result {
	a.mu.Lock()
	defer a.mu.Unlock()
	r := &Result{Decisions: a.decisions, Units: a.units, Cancels: a.cancels}
	for _, l := range a.lanes {
		r.Lanes = append(r.Lanes, l.info)
	}
	r.Err = a.abortErr
	if r.Err == nil {
		r.Err = a.laneErr
	}
	return r
}

// LaneError is the first connection failure a proxy reported (a named
// protocol error, a second producer), or nil.
func (a *Attempt) LaneError() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.laneErr
}

type actorGate struct {
	a     *Attempt
	actor int
}

func (g actorGate) Attach(info netproxy.ConnInfo) (netproxy.ConnGate, error) {
	a := g.a
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.actors[g.actor].starting, info.Stream)
	if a.aborted {
		return nil, a.abortErr
	}
	l := &lane{a: a, release: make(chan error, 1), info: LaneInfo{
		Actor: g.actor, Ordinal: info.Ordinal, Stream: info.Stream, BackendPID: info.BackendPID, Params: info.Params,
	}}
	a.lanes = append(a.lanes, l)
	a.actors[g.actor].lastEvent = time.Now()
	a.poke()
	return l, nil
}

func (g actorGate) Starting(stream int) {
	a := g.a
	a.mu.Lock()
	a.actors[g.actor].starting[stream] = true
	a.actors[g.actor].lastEvent = time.Now()
	a.poke()
	a.mu.Unlock()
}

func (g actorGate) StartFailed(stream int, err error) {
	a := g.a
	a.mu.Lock()
	delete(a.actors[g.actor].starting, stream)
	if err != nil && a.laneErr == nil && netproxy.IsProxyError(err) {
		a.laneErr = err
	}
	a.actors[g.actor].lastEvent = time.Now()
	a.poke()
	a.mu.Unlock()
}

func (g actorGate) Cancel(pid uint32, forwarded bool) {
	a := g.a
	a.mu.Lock()
	a.cancels = append(a.cancels, CancelEvent{Actor: g.actor, PID: pid, Forwarded: forwarded, At: a.since()})
	a.mu.Unlock()
}

// Await registers u as pending and blocks until the decider releases it.
func (l *lane) Await(ctx context.Context, u *netproxy.Unit) error {
	a := l.a
	a.mu.Lock()
	if a.aborted {
		err := a.abortErr
		a.mu.Unlock()
		return err
	}
	if err := a.awaitProducer(ctx, l); err != nil {
		// Only a second producer is the lane's error. The connection's
		// own end while it waited (its client killed, the proxy closing
		// it) and an attempt already aborted say nothing of the scenario.
		if errors.Is(err, ErrSecondProducer) && a.laneErr == nil {
			a.laneErr = err
		}
		a.poke()
		a.mu.Unlock()
		return err
	}
	h := fnv.New64a()
	h.Write(u.Bytes)
	rec := &UnitRecord{
		Ref:         UnitRef{Actor: l.info.Actor, Conn: l.info.Ordinal, Unit: u.Ordinal},
		Kind:        u.Kind,
		Hash:        h.Sum64(),
		Bytes:       append([]byte(nil), u.Bytes...),
		Types:       string(u.Types),
		Prepare:     isPrepare(u.Types),
		BackendPID:  l.info.BackendPID,
		PendingStep: len(a.decisions),
		ReleaseStep: -1,
		PendingAt:   a.since(),
	}
	a.units = append(a.units, rec)
	l.unit, l.state, l.produced, l.pending = rec, lanePending, true, u
	a.actors[l.info.Actor].lastEvent = time.Now()
	a.poke()
	a.mu.Unlock()
	select {
	case err := <-l.release:
		return err
	case <-ctx.Done():
		a.mu.Lock()
		if l.state == lanePending {
			l.state = laneIdle
		}
		a.poke()
		a.mu.Unlock()
		return ctx.Err()
	}
}

// closingGrace is how long a connection's first command waits for another
// connection of the same actor, with no command waiting at the gate, to be
// reported closed. A client that ends a connection and opens the next one
// (psql after psql in a shell script; psql's \connect, which opens the new
// connection before it closes the old) is one producer at a time, but the
// proxy reports a completion just after the client has its answer, and a
// close only once the server's side has ended too: a busy machine can
// delay either past the next connection's first command. The wait ends as
// soon as the close is reported, so a long grace costs nothing then; it
// delays only the error for a real second producer (a pool without the
// multi-producer profile). 2 s was not enough: the fault soak, on a
// machine under a load average of 8, saw one close reported later than
// that in 2,855 attempts.
const closingGrace = 10 * time.Second

// awaitProducer enforces one producing connection per actor unless the
// multi-producer profile is on: another connection of the actor that
// has sent commands must be closed, or be closed within closingGrace
// without sending another command (one waiting at the gate is a second
// producer at once). a.mu held; released while waiting.
func (a *Attempt) awaitProducer(ctx context.Context, l *lane) error {
	if a.cfg.MultiProducer {
		return nil
	}
	deadline := time.Now().Add(closingGrace)
	for {
		o := a.otherProducer(l)
		if o == nil {
			return nil
		}
		if a.aborted {
			return a.abortErr
		}
		left := time.Until(deadline)
		if o.state == lanePending || left <= 0 {
			how := map[laneState]string{lanePending: "with a command waiting to be sent", laneExecuting: fmt.Sprintf("its command still running %v later", closingGrace), laneIdle: fmt.Sprintf("idle, and not closed %v later", closingGrace)}[o.state]
			return fmt.Errorf("%w: actor %s sent a command on connection #%d while connection #%d is still open (%s); the default profile allows one connection at a time per actor, run with Options.Proxy.Connections multi-producer for connection pools",
				ErrSecondProducer, a.actors[l.info.Actor].name, l.info.Ordinal, o.info.Ordinal, how)
		}
		if a.changed == nil {
			a.changed = make(chan struct{})
		}
		changed := a.changed
		a.mu.Unlock()
		timer := time.NewTimer(left)
		select {
		case <-changed:
		case <-timer.C:
		case <-ctx.Done():
		}
		timer.Stop()
		a.mu.Lock()
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// otherProducer is another open connection of l's actor that has sent
// commands, or nil; a.mu held.
func (a *Attempt) otherProducer(l *lane) *lane {
	for _, o := range a.lanes {
		if o != l && o.info.Actor == l.info.Actor && !o.closed && o.produced {
			return o
		}
	}
	return nil
}

// Complete records the server's answer to the lane's released unit.
func (l *lane) Complete(r *netproxy.Result) {
	a := l.a
	a.mu.Lock()
	defer a.mu.Unlock()
	u := l.unit
	if u == nil || l.state != laneExecuting {
		return
	}
	u.Completed = true
	u.CompletedAt = a.since()
	u.TxStatus = r.TxStatus
	u.Rows = r.Rows
	u.Copy = r.Copy
	for tags := r.Tags; len(tags) > 0; {
		i := 0
		for i < len(tags) && tags[i] != 0 {
			i++
		}
		u.Tags = append(u.Tags, string(tags[:i]))
		if i < len(tags) {
			i++
		}
		tags = tags[i:]
	}
	if len(r.SQLState) > 0 {
		u.SQLState, u.Error = string(r.SQLState), string(r.Error)
		if u.SQLState == SQLStateDeadlock {
			u.DeadlockDetail = string(r.Detail)
		}
	}
	l.state, l.unit, l.waiting = laneIdle, nil, false
	if r.TxStatus == 'T' || r.TxStatus == 'E' {
		l.done = u
	} else {
		l.done = nil
	}
	a.actors[l.info.Actor].lastEvent = time.Now()
	a.poke()
}

// Closed records the end of the lane's connection.
func (l *lane) Closed(err error) { l.close(err, false) }

// ClosedKept is Closed for a connection whose session the proxy reset and
// kept (netproxy.SessionKeeper): its locks are released though its
// backend lives on, so the decider does not wait for that backend to exit.
func (l *lane) ClosedKept() { l.close(nil, true) }

func (l *lane) close(err error, kept bool) {
	a := l.a
	a.mu.Lock()
	defer a.mu.Unlock()
	l.closed, l.done = true, nil
	if kept {
		l.gone = true
	}
	if err != nil {
		l.info.Error = err.Error()
		if a.laneErr == nil && !a.actors[l.info.Actor].done && netproxy.IsProxyError(err) {
			a.laneErr = err
		}
		if l.unit != nil && !l.unit.Completed && l.unit.Error == "" {
			l.unit.Error = "connection closed: " + err.Error()
		}
	}
	if l.state == lanePending {
		select {
		case l.release <- errors.New("connection closed"):
		default:
		}
	}
	l.state, l.unit = laneIdle, nil
	a.actors[l.info.Actor].lastEvent = time.Now()
	a.poke()
}

// isPrepare reports whether a unit's messages execute nothing.
func isPrepare(types []byte) bool {
	for _, t := range types {
		if t == 'E' || t == 'Q' || t == 'F' {
			return false
		}
	}
	return true
}

// defaultOrder releases the first candidate: the default (FIFO) order. The
// search's policies live in package search; this is what an attempt does
// when it is given none.
type defaultOrder struct{}

func (defaultOrder) Choose(int, []Candidate) ([]int, error) { return []int{0}, nil }

package sched

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/pginterleave/interleave/netproxy"
)

// Run is the decider. It waits for quiescence (every actor holds a pending
// unit, waits on a lock PostgreSQL reports, or has finished), then releases
// what the policy chooses, until every actor has finished or the attempt is
// aborted or ctx ends (a deadline makes the attempt inconclusive).
func (a *Attempt) Run(ctx context.Context) error {
	pollDelay := a.cfg.PollFirst
	var nextPoll time.Time
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	wait := func(d time.Duration) error {
		if d <= 0 {
			d = time.Hour
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(d)
		select {
		case <-a.wake:
		case <-timer.C:
		case <-ctx.Done():
			a.Abort(a.stopReason(ctx))
		}
		return nil
	}

	for {
		if ctx.Err() != nil {
			// Checked first: actors that fail because the deadline cancelled
			// them must not make the attempt look finished.
			a.Abort(a.stopReason(ctx))
		}
		a.mu.Lock()
		if a.aborted {
			err := a.abortErr
			a.mu.Unlock()
			return err
		}
		now := time.Now()
		runningFor, allDone := a.runningLocked(now)
		if allDone {
			a.mu.Unlock()
			return nil
		}
		if runningFor >= 0 {
			a.mu.Unlock()
			wait(runningFor)
			continue
		}
		if watcher, ok := a.cfg.Monitor.(BackendWatcher); ok {
			if pids := a.endingLocked(now); len(pids) > 0 {
				// A connection that ended (or whose actor returned) still
				// holds its session's locks until its backend exits: the
				// next command is released after that, not at a time the
				// operating system picks.
				a.mu.Unlock()
				alive, err := watcher.Alive(ctx, pids)
				a.mu.Lock()
				if err == nil {
					a.markGoneLocked(pids, alive)
				}
				a.mu.Unlock()
				if err != nil && ctx.Err() == nil {
					a.Abort(fmt.Errorf("lock monitor: %w", err))
				} else if len(alive) > 0 {
					wait(time.Millisecond)
				}
				continue
			}
		}
		unconfirmed := a.unconfirmedLocked()
		if len(unconfirmed) > 0 {
			if d := time.Until(nextPoll); d > 0 {
				a.mu.Unlock()
				wait(d)
				continue
			}
			epoch := a.epoch
			actorPIDs := a.actorPIDsLocked()
			a.mu.Unlock()
			waits, err := a.cfg.Monitor.Waits(ctx, unconfirmed, actorPIDs)
			if err != nil {
				if ctx.Err() != nil {
					continue // the deadline path aborts on the next wait
				}
				a.Abort(fmt.Errorf("lock monitor: %w", err))
				continue
			}
			a.mu.Lock()
			confirmed := a.applyWaitsLocked(waits, epoch)
			a.mu.Unlock()
			if !confirmed {
				nextPoll = time.Now().Add(pollDelay)
				if pollDelay *= 2; pollDelay > a.cfg.PollMax {
					pollDelay = a.cfg.PollMax
				}
			}
			continue
		}
		if reader, ok := a.cfg.Monitor.(LockReader); ok {
			if pids, units := a.unreadLocksLocked(); len(pids) > 0 {
				// Read what the units that left a transaction open hold
				// before anything else runs: the reduction checks its
				// classification against it.
				a.mu.Unlock()
				held, err := reader.HeldLocks(ctx, pids)
				a.mu.Lock()
				for i, u := range units {
					u.LocksRead = err == nil
					if err == nil {
						u.HeldLocks = held[pids[i]]
					}
				}
				a.mu.Unlock()
				continue
			}
		}
		if a.deadlockedLocked() {
			// The actors' lock waits form a cycle: PostgreSQL aborts a
			// victim when its deadlock_timeout ends. Nothing is released
			// until then, so the deadlock ends right after the release
			// that closed it, in every run, and not at whichever later
			// decision its timer happened to fall (which would make the
			// units pending there a matter of timing).
			a.mu.Unlock()
			wait(a.cfg.PollMax)
			continue
		}
		cands, lanes := a.candidatesLocked()
		if len(cands) == 0 {
			// Every live actor waits on a lock and nothing can be released:
			// PostgreSQL's deadlock detector or a timeout will end a wait.
			a.mu.Unlock()
			wait(a.cfg.PollMax * 10)
			continue
		}
		pair, err := a.decideLocked(cands, lanes)
		if err != nil {
			if errors.Is(err, ErrWaitForMore) {
				// Wait for the next event; a short timer bounds the wait in
				// case none comes, so that the policy can give up.
				a.mu.Unlock()
				wait(a.cfg.PollMax)
				continue
			}
			a.abortLocked(err)
			a.mu.Unlock()
			continue
		}
		a.mu.Unlock()
		if pair != nil {
			a.sendPair(ctx, pair)
		}
		a.terminatePending(ctx)
		pollDelay = a.cfg.PollFirst
		nextPoll = time.Now().Add(pollDelay)
	}
}

// runningLocked reports whether some actor is running its own code: it
// returns -1 when none is, 0 when one is with no known end, or how long until
// a multi-producer actor's settle time passes. allDone is true when every
// actor has finished.
func (a *Attempt) runningLocked(now time.Time) (running time.Duration, allDone bool) {
	running, allDone = -1, true
	for i := range a.actors {
		st := &a.actors[i]
		if st.done {
			continue
		}
		allDone = false
		if len(st.starting) > 0 {
			return 0, false // connecting: start-up is not gated, so wait for it
		}
		busy := false
		for _, l := range a.lanes {
			if l.info.Actor == i && !l.closed && l.state != laneIdle {
				busy = true
				break
			}
		}
		if !busy {
			return 0, false
		}
		if a.cfg.MultiProducer {
			if left := a.cfg.Settle - now.Sub(st.lastEvent); left > 0 && (running < 0 || left < running) {
				running = left
			}
		}
	}
	return running, allDone
}

// unconfirmedLocked returns the pids of executing units not confirmed
// blocked since the last event.
func (a *Attempt) unconfirmedLocked() []uint32 {
	var pids []uint32
	for _, l := range a.lanes {
		if l.state == laneExecuting && l.blockedAt != a.epoch {
			pids = append(pids, l.info.BackendPID)
		}
	}
	return pids
}

func (a *Attempt) actorPIDsLocked() []uint32 {
	var pids []uint32
	// Closed lanes count too: a backend whose client has gone may still be
	// releasing its locks.
	for _, l := range a.lanes {
		if l.info.BackendPID != 0 {
			pids = append(pids, l.info.BackendPID)
		}
	}
	return pids
}

// applyWaitsLocked marks executing lanes blocked and records lock waits. It
// reports whether every executing unit is now confirmed blocked. A poll
// taken before the latest event confirms nothing.
func (a *Attempt) applyWaitsLocked(waits []Wait, epoch uint64) bool {
	byPID := map[uint32]Wait{}
	for _, w := range waits {
		byPID[w.PID] = w
	}
	all := true
	for _, l := range a.lanes {
		if l.state != laneExecuting || l.blockedAt == a.epoch {
			continue
		}
		w, ok := byPID[l.info.BackendPID]
		if ok && !w.ByActors && len(w.Blockers) > 0 && epoch == a.epoch {
			a.abortLocked(fmt.Errorf("%w: %s waits on a lock held by a session that is not an actor (pid %v); something else is using the attempt's database",
				ErrInconclusive, a.unitName(l.unit), w.Blockers))
			return false
		}
		if foreign := a.foreignLocked(w.SnapshotBlockers); len(foreign) > 0 {
			a.abortLocked(fmt.Errorf("%w: %w: %s waits for a safe snapshot (SERIALIZABLE READ ONLY DEFERRABLE) until serializable read-write transactions of sessions that are not this attempt's actors end (pids %v): PostgreSQL counts every database's, so another attempt running beside this one, or another client of the server, decided when it went on",
				ErrInconclusive, ErrInterference, a.unitName(l.unit), foreign))
			return false
		}
		if !ok || !w.ByActors {
			all = false
			continue
		}
		l.blockers = append(l.blockers[:0], w.Blockers...)
		if !l.waiting {
			l.waiting = true
			l.unit.LockWaits = append(l.unit.LockWaits, LockWait{
				Step: len(a.decisions), At: a.since(), Blockers: a.actorsOf(w.Blockers), PIDs: w.Blockers,
			})
		}
		if epoch == a.epoch {
			l.blockedAt = epoch
		} else {
			all = false
		}
	}
	return all
}

// deadlockedLocked reports whether the executing units confirmed blocked
// wait for each other in a cycle (by pg_blocking_pids): a deadlock
// PostgreSQL has not ended yet.
func (a *Attempt) deadlockedLocked() bool {
	waitsFor := map[uint32][]uint32{}
	for _, l := range a.lanes {
		if l.state == laneExecuting && l.blockedAt == a.epoch && l.info.BackendPID != 0 {
			waitsFor[l.info.BackendPID] = l.blockers
		}
	}
	return hasCycle(waitsFor)
}

// hasCycle reports whether the graph of edges from each key to its values
// has a cycle among its keys.
func hasCycle(edges map[uint32][]uint32) bool {
	const (
		unseen = iota
		open
		closed
	)
	state := map[uint32]int{}
	var visit func(uint32) bool
	visit = func(n uint32) bool {
		state[n] = open
		for _, m := range edges[n] {
			if _, ok := edges[m]; !ok {
				continue
			}
			switch state[m] {
			case open:
				return true
			case unseen:
				if visit(m) {
					return true
				}
			}
		}
		state[n] = closed
		return false
	}
	for n := range edges {
		if state[n] == unseen && visit(n) {
			return true
		}
	}
	return false
}

// foreignLocked returns the pids of pids that are none of the attempt's
// backends.
func (a *Attempt) foreignLocked(pids []uint32) []uint32 {
	var out []uint32
	for _, p := range pids {
		if len(a.actorsOf([]uint32{p})) == 0 {
			out = append(out, p)
		}
	}
	return out
}

func (a *Attempt) actorsOf(pids []uint32) []int {
	var out []int
	for _, p := range pids {
		for _, l := range a.lanes {
			if l.info.BackendPID == p {
				out = append(out, l.info.Actor)
				break
			}
		}
	}
	return out
}

// candidatesLocked lists pending units in default-policy (FIFO) order.
func (a *Attempt) candidatesLocked() ([]Candidate, []*lane) {
	var lanes []*lane
	for _, l := range a.lanes {
		if l.state == lanePending && !l.closed {
			lanes = append(lanes, l)
		}
	}
	sort.SliceStable(lanes, func(i, j int) bool {
		x, y := lanes[i].unit, lanes[j].unit
		if x.PendingStep != y.PendingStep {
			return x.PendingStep < y.PendingStep
		}
		if x.Ref.Actor != y.Ref.Actor {
			return x.Ref.Actor < y.Ref.Actor
		}
		return x.Ref.Conn < y.Ref.Conn
	})
	// A unit that executes nothing (statement preparation: Parse, Describe,
	// Bind without Execute) is released first and alone: it is not a choice
	// point, so a driver's prepare round trips do not multiply the orders.
	for _, l := range lanes {
		if l.unit.Prepare {
			lanes = []*lane{l}
			break
		}
	}
	cands := make([]Candidate, len(lanes))
	for i, l := range lanes {
		cands[i] = Candidate{Ref: l.unit.Ref, Hash: l.unit.Hash, Since: l.unit.PendingStep, Prepare: l.unit.Prepare}
	}
	return cands, lanes
}

// pairSend is a released pair still to be written: the decider writes it
// after letting go of the attempt's lock, behind the barrier.
type pairSend struct {
	lanes []*lane
	units []*netproxy.Unit
}

func (a *Attempt) decideLocked(cands []Candidate, lanes []*lane) (*pairSend, error) {
	step := len(a.decisions)
	if debugSched {
		var b strings.Builder
		for _, l := range a.lanes {
			fmt.Fprintf(&b, " [%d#%d state=%d", l.info.Actor, l.info.Ordinal, l.state)
			if l.unit != nil {
				fmt.Fprintf(&b, " unit=%d since=%d", l.unit.Ref.Unit, l.unit.PendingStep)
			}
			b.WriteString("]")
		}
		fmt.Fprintf(os.Stderr, "sched step %d at %v cands %v lanes%s\n", step, a.since(), cands, b.String())
	}
	picks, err := a.cfg.Policy.Choose(step, cands)
	if err != nil {
		return nil, err
	}
	if len(picks) == 0 || len(picks) > 2 {
		return nil, fmt.Errorf("policy released %d units at step %d", len(picks), step)
	}
	fault := a.faultFor(step, picks)
	d := Decision{Step: step, Candidates: cands, Choice: len(picks) != 1 || picks[0] != 0 || fault != NoFault, Fault: fault}
	for _, l := range a.lanes {
		if l.state == laneExecuting {
			d.Blocked = append(d.Blocked, l.unit.Ref)
		}
	}
	now := a.since()
	for _, i := range picks {
		if i < 0 || i >= len(lanes) {
			return nil, fmt.Errorf("policy chose candidate %d of %d at step %d", i, len(lanes), step)
		}
		if lanes[i].state != lanePending {
			return nil, fmt.Errorf("policy chose %s twice at step %d", a.unitName(lanes[i].unit), step)
		}
		lanes[i].state = laneExecuting
	}
	var pair *pairSend
	if len(picks) == 2 {
		pair = &pairSend{}
	}
	for _, i := range picks {
		l := lanes[i]
		d.Released = append(d.Released, l.unit.Ref)
		l.unit.ReleaseStep, l.unit.ReleasedAt, l.unit.Pair, l.unit.Fault = step, now, len(picks) == 2, fault
		if pair != nil {
			pair.lanes, pair.units = append(pair.lanes, l), append(pair.units, l.pending)
		} else {
			a.releaseLocked(l, fault)
		}
		l.waiting, l.pending = false, nil
	}
	a.decisions = append(a.decisions, d)
	a.poke()
	return pair, nil
}

// sendPair writes a released pair in one pass from this goroutine, rather
// than whenever each proxy goroutine wakes, behind the barrier when there
// is one, and then lets the proxies go on.
func (a *Attempt) sendPair(ctx context.Context, p *pairSend) {
	var barrier uint32
	held := false
	if a.cfg.Barrier != nil {
		barrier, held = a.cfg.Barrier.Hold(ctx)
	}
	for _, u := range p.units {
		_ = u.Send() // an error surfaces on the proxy's side
	}
	if held {
		both := a.awaitBarrier(ctx, p, barrier)
		a.cfg.Barrier.Release(ctx)
		if debugSched {
			fmt.Fprintf(os.Stderr, "barrier held by %d; both waiting: %v\n", barrier, both)
		}
	} else if debugSched {
		fmt.Fprintf(os.Stderr, "no barrier for the pair\n")
	}
	a.mu.Lock()
	for _, l := range p.lanes {
		l.release <- nil
	}
	a.poke()
	a.mu.Unlock()
}

// barrierWait bounds how long a pair waits for both statements to reach
// the barrier; a statement that needs none of its relations never does.
const barrierWait = 250 * time.Millisecond

// awaitBarrier polls until both statements of a pair wait on the barrier's
// lock (or the bound passes).
func (a *Attempt) awaitBarrier(ctx context.Context, p *pairSend, barrier uint32) bool {
	pids := make([]uint32, len(p.lanes))
	for i, l := range p.lanes {
		pids[i] = l.info.BackendPID
	}
	deadline := time.Now().Add(barrierWait)
	for delay := 100 * time.Microsecond; time.Now().Before(deadline) && ctx.Err() == nil; delay = min(2*delay, 5*time.Millisecond) {
		waits, err := a.cfg.Monitor.Waits(ctx, pids, []uint32{barrier})
		if err != nil {
			return false
		}
		n := 0
		for _, w := range waits {
			if w.ByActors {
				n++
			}
		}
		if n == len(pids) {
			return true
		}
		time.Sleep(delay)
	}
	return false
}

func (a *Attempt) unitName(u *UnitRecord) string {
	if u == nil {
		return "a unit"
	}
	return fmt.Sprintf("%s's unit %d on connection #%d", a.actors[u.Ref.Actor].name, u.Ref.Unit, u.Ref.Conn)
}

// describeStates says what each unfinished actor was doing.
func (a *Attempt) describeStates() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var parts []string
	for i, st := range a.actors {
		if st.done {
			continue
		}
		what := "was running its own code (no command pending)"
		for _, l := range a.lanes {
			if l.info.Actor != i || l.closed {
				continue
			}
			switch l.state {
			case lanePending:
				what = fmt.Sprintf("had unit %d pending on connection #%d", l.unit.Ref.Unit, l.info.Ordinal)
			case laneExecuting:
				what = fmt.Sprintf("was executing unit %d on connection #%d", l.unit.Ref.Unit, l.info.Ordinal)
				if l.waiting {
					what += " (waiting on a lock)"
				}
			}
		}
		parts = append(parts, st.name+" "+what)
	}
	if len(parts) == 0 {
		return "every actor had finished"
	}
	return strings.Join(parts, "; ")
}

// stopReason explains why ctx ended the attempt.
func (a *Attempt) stopReason(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.Canceled) {
		return fmt.Errorf("%w: the attempt was cancelled; %s", ErrInconclusive, a.describeStates())
	}
	return fmt.Errorf("%w: the attempt deadline passed; %s", ErrInconclusive, a.describeStates())
}

var debugSched = os.Getenv("INTERLEAVE_DEBUG_SCHED") != ""

// unreadLocksLocked lists the lanes' last units that left a transaction
// open and whose held locks are not read yet, with their backends; a.mu
// held. Each is taken once.
func (a *Attempt) unreadLocksLocked() ([]uint32, []*UnitRecord) {
	var pids []uint32
	var units []*UnitRecord
	for _, l := range a.lanes {
		if u := l.done; u != nil && !l.closed && l.state != laneExecuting && l.info.BackendPID != 0 {
			pids = append(pids, l.info.BackendPID)
			units = append(units, u)
			l.done = nil
		}
	}
	return pids, units
}

// backendExitWait bounds the wait for an ended connection's backend to
// exit; past it the decider goes on (a backend PostgreSQL keeps for a
// long exit is no reason to hang).
const backendExitWait = 5 * time.Second

// endingLocked lists the backends of connections that ended, or whose
// actor returned, not yet seen gone; a.mu held.
func (a *Attempt) endingLocked(now time.Time) []uint32 {
	var pids []uint32
	for _, l := range a.lanes {
		if l.gone || l.info.BackendPID == 0 || !(l.closed || a.actors[l.info.Actor].done) {
			continue
		}
		if l.endingSince.IsZero() {
			l.endingSince = now
		} else if now.Sub(l.endingSince) > backendExitWait {
			l.gone = true
			continue
		}
		pids = append(pids, l.info.BackendPID)
	}
	return pids
}

// markGoneLocked marks the lanes of pids whose backends are not alive;
// a.mu held.
func (a *Attempt) markGoneLocked(pids, alive []uint32) {
	live := map[uint32]bool{}
	for _, p := range alive {
		live[p] = true
	}
	for _, l := range a.lanes {
		if !l.gone && !live[l.info.BackendPID] {
			for _, p := range pids {
				if p == l.info.BackendPID {
					l.gone = true
				}
			}
		}
	}
}

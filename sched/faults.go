package sched

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Fault is a failure injected at a release unit, chosen by the policy as it
// chooses the unit: the one list of fault kinds.
type Fault string

// The fault kinds. NoFault is the zero value.
const (
	NoFault Fault = ""
	// LostReply: the unit runs to completion on the server, then the
	// client's connection is closed before it receives the reply (a COMMIT
	// is committed and its client never hears so).
	LostReply Fault = "lost-reply"
	// Reset: the client's connection is closed before the unit reaches
	// the server, and the server's connection with it.
	Reset Fault = "reset"
	// Terminate: PostgreSQL terminates the actor's backend while the unit
	// waits to be released (pg_terminate_backend, as an administrator or a
	// failover would); the client receives PostgreSQL's own FATAL 57P01.
	Terminate Fault = "terminate"
)

var faultKinds = []Fault{LostReply, Reset, Terminate}

// FaultKinds lists every fault kind.
func FaultKinds() []Fault { return append([]Fault(nil), faultKinds...) }

// FaultNames lists the fault kinds' names.
func FaultNames() []string {
	out := make([]string, len(faultKinds))
	for i, f := range faultKinds {
		out[i] = string(f)
	}
	return out
}

// ParseFault reads a fault kind's name ("" is NoFault).
func ParseFault(s string) (Fault, error) {
	if s == "" {
		return NoFault, nil
	}
	for _, f := range faultKinds {
		if string(f) == s {
			return f, nil
		}
	}
	return NoFault, fmt.Errorf("unknown fault %q (known: %s)", s, strings.Join(FaultNames(), ", "))
}

// Faults is a set of fault kinds, as a comma-separated list.
type Faults []Fault

// ParseFaults reads a comma-separated list of fault kinds; repeats count
// once, and "" or "none" is the empty list.
func ParseFaults(s string) (Faults, error) {
	var out Faults
	if s == "" || s == "none" {
		return out, nil
	}
	seen := map[Fault]bool{}
	for _, part := range strings.Split(s, ",") {
		f, err := ParseFault(strings.TrimSpace(part))
		if err != nil {
			return nil, err
		}
		if f == NoFault || seen[f] {
			continue
		}
		seen[f] = true
		out = append(out, f)
	}
	return out, nil
}

func (fs Faults) String() string {
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = string(f)
	}
	return strings.Join(s, ",")
}

// Set implements flag.Value.
func (fs *Faults) Set(v string) (err error) { *fs, err = ParseFaults(v); return err }

// FaultPolicy is a Policy that may inject a fault into the unit it
// releases: after Choose picked one unit at step, Fault says which fault,
// if any, that unit gets. A pair is never faulted.
type FaultPolicy interface {
	Policy
	Fault(step int) Fault
}

// BackendTerminator is a LockMonitor that can terminate a backend.
type BackendTerminator interface {
	Terminate(ctx context.Context, pid uint32) error
}

// Terminate implements BackendTerminator: pg_terminate_backend from the
// monitor's connection.
func (m *PGMonitor) Terminate(ctx context.Context, pid uint32) error {
	var ok bool
	if err := m.conn.QueryRow(ctx, `SELECT pg_terminate_backend($1)`, int32(pid)).Scan(&ok); err != nil {
		return fmt.Errorf("terminate backend %d: %w", pid, err)
	}
	if !ok {
		return fmt.Errorf("terminate backend %d: %w", pid, ErrBackendGone)
	}
	return nil
}

// ErrBackendGone is BackendTerminator.Terminate's error when PostgreSQL
// finds no such backend: it ended before the fault (killed from outside,
// or a session timeout such as idle_in_transaction_session_timeout). The
// connection is ending anyway; the attempt goes on as after a terminate.
var ErrBackendGone = errors.New("PostgreSQL found no such backend: it had already ended")

// faultFor asks the policy for the fault of a single release; a.mu held.
func (a *Attempt) faultFor(step int, picks []int) Fault {
	fp, ok := a.cfg.Policy.(FaultPolicy)
	if !ok || len(picks) != 1 {
		return NoFault
	}
	return fp.Fault(step)
}

// releaseLocked lets the proxy of a released lane go on, with fault applied
// to its unit; a terminate is left for the decider to carry out once it
// has let go of the lock (terminatePending). a.mu held.
func (a *Attempt) releaseLocked(l *lane, fault Fault) {
	switch fault {
	case LostReply:
		l.pending.LoseReply()
	case Reset:
		l.pending.Reset()
		l.unit.Error = "fault: the connection was reset before the command reached PostgreSQL"
	case Terminate:
		a.terminating = append(a.terminating, l)
		return
	}
	l.release <- nil
}

// terminateWait bounds how long the decider waits for a terminated
// backend to exit.
const terminateWait = 5 * time.Second

// terminatePending carries out the terminations the last decision chose:
// PostgreSQL terminates each lane's backend while its unit waits at the
// gate (the unit never runs), and the decider waits until the backend has
// exited and the proxy has seen the connection end (the client then has
// PostgreSQL's FATAL 57P01), so that what happens next does not depend on
// timing. A connection the proxy has not seen end by then (its server
// side can stay open a while after the backend has left pg_stat_activity)
// is closed by the proxy, as a reset, when the unit is released.
func (a *Attempt) terminatePending(ctx context.Context) {
	a.mu.Lock()
	lanes := a.terminating
	a.terminating = nil
	a.mu.Unlock()
	for _, l := range lanes {
		closed, err := a.terminate(ctx, l)
		if err != nil && ctx.Err() == nil {
			a.Abort(fmt.Errorf("fault %s: %w", Terminate, err))
		}
		a.mu.Lock()
		if !closed && l.pending != nil {
			l.pending.Reset()
		}
		select {
		case l.release <- nil:
		default:
		}
		a.poke()
		a.mu.Unlock()
	}
}

// terminate has PostgreSQL terminate l's backend and waits for it to exit
// and for the proxy to see the connection end; closed says it did.
func (a *Attempt) terminate(ctx context.Context, l *lane) (closed bool, err error) {
	t, ok := a.cfg.Monitor.(BackendTerminator)
	if !ok {
		return false, fmt.Errorf("the lock monitor cannot terminate backends")
	}
	pid := l.info.BackendPID
	if err := t.Terminate(ctx, pid); err != nil && !errors.Is(err, ErrBackendGone) {
		return false, err
	}
	watcher, _ := a.cfg.Monitor.(BackendWatcher)
	deadline := time.Now().Add(terminateWait)
	var goneAt time.Time
	for delay := 100 * time.Microsecond; time.Now().Before(deadline) && ctx.Err() == nil; delay = min(2*delay, 5*time.Millisecond) {
		a.mu.Lock()
		closed = l.closed
		a.mu.Unlock()
		if goneAt.IsZero() {
			gone := watcher == nil
			if !gone {
				alive, err := watcher.Alive(ctx, []uint32{pid})
				if err != nil {
					return false, err
				}
				gone = len(alive) == 0
			}
			if gone {
				goneAt = time.Now()
			}
		}
		if !goneAt.IsZero() && (closed || time.Since(goneAt) > closeAfterExit) {
			return closed, nil
		}
		time.Sleep(delay)
	}
	return closed, nil
}

// closeAfterExit bounds how long the decider waits, once the terminated
// backend has left pg_stat_activity, for the proxy to see its connection
// end.
const closeAfterExit = 250 * time.Millisecond

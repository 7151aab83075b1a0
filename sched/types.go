package sched

import (
	"errors"
	"fmt"
	"time"

	"github.com/pginterleave/interleave/netproxy"
)

// UnitRef names a release unit: actor index, connection (lane) ordinal within
// the actor, unit ordinal within the connection.
type UnitRef struct {
	Actor int
	Conn  int
	Unit  int
}

func (r UnitRef) String() string { return fmt.Sprintf("%d#%d.%d", r.Actor, r.Conn, r.Unit) }

// Candidate is a unit pending at a decision.
type Candidate struct {
	Ref     UnitRef
	Hash    uint64
	Since   int  // decision step at which the unit became pending
	Prepare bool // the unit executes nothing (released without a choice)
}

// Decision is one release: the units released together (one, or two under
// overlap pairs), the candidates that were pending, which one the default
// policy would have picked, and the units blocked at that moment.
type Decision struct {
	Step       int
	Released   []UnitRef
	Candidates []Candidate
	Default    int // index into Candidates
	Choice     bool
	Blocked    []UnitRef
	Fault      Fault // injected into the released unit (faults.go)
}

// ErrWaitForMore is what a policy returns when the units it expects at this
// decision are not all pending yet (a connection pool whose other goroutine
// has not sent its command): the decider waits for the next event and asks
// again. The policy bounds how long it keeps asking.
var ErrWaitForMore = errors.New("wait for more pending units")

// Policy chooses releases. Choose gets the candidates in default-policy
// order (FIFO: earliest pending first, ties by actor then connection), so
// index 0 is the default. It returns the indices to release: one, or two
// for an overlapping pair. An error ends the attempt (for example a replay
// that finds a different unit than it recorded).
type Policy interface {
	Choose(step int, cands []Candidate) ([]int, error)
}

// SQLStateDeadlock is PostgreSQL's deadlock_detected: the unit's backend
// was the victim of a deadlock.
const SQLStateDeadlock = "40P01"

// LockWait is a lock wait PostgreSQL reported for a released unit.
type LockWait struct {
	Step     int // decisions made when the wait was first seen
	At       time.Duration
	Blockers []int    // actor indices holding what the unit waits for
	PIDs     []uint32 // blocking backend pids
}

// UnitRecord is everything recorded about one unit.
type UnitRecord struct {
	Ref   UnitRef
	Kind  netproxy.Kind
	Hash  uint64
	Bytes []byte // the client's bytes (owned copy)
	Types string // message type letters
	// Prepare marks a unit that executes nothing (no Execute, Query or
	// FunctionCall): it is released without a choice.
	Prepare    bool
	BackendPID uint32

	PendingStep int
	ReleaseStep int // -1 until released
	PendingAt   time.Duration
	ReleasedAt  time.Duration
	CompletedAt time.Duration

	Completed bool
	TxStatus  byte
	Tags      []string
	Rows      int
	SQLState  string
	Error     string
	// DeadlockDetail is the DETAIL of a deadlock_detected error (40P01):
	// PostgreSQL's account of the cycle, one "Process N waits for ...;
	// blocked by process M." line per member, the way the engine checks
	// that the planned victim was the one aborted. Empty for other units.
	DeadlockDetail string
	Copy           byte
	LockWaits      []LockWait
	Pair           bool // released together with another unit
	// HeldLocks are the relation locks the unit's backend held once the
	// unit had completed inside a transaction (pg_locks, read before the
	// next decision), for the reduction's cross-check of its
	// classification; LocksRead says they were read.
	HeldLocks []RelLock
	LocksRead bool
	Fault     Fault // injected at its release (faults.go)
}

// RelLock is a relation lock PostgreSQL reports (pg_locks): the database's
// and the relation's oids.
type RelLock struct{ DB, Rel uint32 }

// LaneInfo describes one connection of an actor.
type LaneInfo struct {
	Actor      int
	Ordinal    int
	Stream     int
	BackendPID uint32
	Params     []string
	Error      string // why the connection failed, if it did
}

// CancelEvent is a CancelRequest that reached an actor's proxy.
type CancelEvent struct {
	Actor     int
	PID       uint32
	Forwarded bool
	At        time.Duration
}

// Result is the record of one scheduled attempt.
type Result struct {
	Decisions []Decision
	Units     []*UnitRecord // in order of becoming pending
	Lanes     []LaneInfo
	Cancels   []CancelEvent
	Err       error // why scheduling stopped early (nil when every actor finished)
}

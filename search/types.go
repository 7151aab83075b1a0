package search

import (
	"context"
	"time"

	"github.com/pginterleave/interleave/sched"
)

// Report is what the search needs to know about one attempt.
type Report struct {
	Decisions    []sched.Decision
	Failed       bool // a violation or actor error: a failure worth keeping
	Inconclusive bool // could not be judged
	Diverged     bool // the plan could not be followed
	// Unsettled: the plan was followed, but PostgreSQL decided something
	// the model takes to go one way another way (row-lock waits granted
	// out of queue order): the plan runs again, up to DivergeRetries
	// times, and an attempt that goes the same way every time is how
	// PostgreSQL runs that order, and counts as it ran.
	Unsettled bool
	Stop      error // a harness failure that makes further attempts pointless
	// Trace is the attempt as partial-order reduction sees it; nil when the
	// reduction is off or the attempt could not be analysed (every
	// alternative is then explored).
	Trace *Trace
	// DivergedAt says where a plan could not be followed; WrongVictim,
	// that it was a deadlock that aborted another actor than the plan's
	// victim (a deadlock timer that ended out of order: timing).
	DivergedAt  string
	WrongVictim bool
	// reruns is how many times the plan ran again after diverging
	// (filled in by the explorer).
	reruns int
	// Deadlocks lists the deadlocks PostgreSQL broke: the search also
	// tries the same order with each other participant aborted.
	Deadlocks []Deadlock
	// Actors is how many actors the attempt had.
	Actors int
	// Behaviour summarises what the attempt did (each actor's results and
	// errors, the database at the end), for the reduction check; "" when
	// not known.
	Behaviour string
}

// RunFunc runs one attempt on worker w following policy. seq is the
// attempt's dispatch sequence number (0 for the first).
type RunFunc func(ctx context.Context, w, seq int, plan Plan, policy sched.Policy) Report

// Options are the search's strategy and budgets. The zero value is a
// breadth-first (fifo) search with partial-order reduction, no budgets and
// one worker per call of Explore.
type Options struct {
	// Strategy is FIFO (fewest choices first, the default), DFS, Random or
	// PCT. Seed drives Random and PCT; Depth is PCT's bug depth d
	// (default 2).
	Strategy Strategy
	Seed     int64
	Depth    int
	// Budgets; zero means unlimited. MaxDepth bounds the choices of a plan.
	MaxAttempts int
	MaxTime     time.Duration
	MaxDepth    int
	// KeepGoing continues after the first failure.
	KeepGoing bool
	// Workers is the number of attempts run in parallel (0: one).
	Workers int
	// Overlap Pairs adds pair releases: two pending units of different
	// actors released in one write pass, for PostgreSQL to interleave. A
	// plan that ends with a pair runs up to PairRepeats times (default 10)
	// until it fails, since the interleaving is PostgreSQL's.
	Overlap     Overlap
	PairRepeats int
	// Reduction is POR (the default: orders that differ only by swapping
	// adjacent independent units are run once) or None (every order).
	Reduction Reduction
	// SourceSetsOnly runs the reduction as source sets alone: no sleep
	// sets (sleep.go) and no reversal sequences (Plan.Then), as before
	// them, to measure what they save.
	SourceSetsOnly bool
	// CountClasses counts the equivalence classes of the orders run
	// (Summary.Classes): the attempts' traces are analysed as under the
	// reduction, whatever the reduction. For measurement.
	CountClasses bool
	// Shard K of Shards (1-based) explores its part of the same
	// deterministic space: every shard runs the first schedules (the
	// first, and under reduction those with one choice), then the branches
	// below them are dealt out (shard.go). Zero Shards means the whole
	// space.
	Shard, Shards int
	// FrontierBytes bounds the memory of pending prefixes (0: 256 MiB);
	// prefixes beyond it are dropped, counted, and the search is then not
	// exhaustive.
	FrontierBytes int
	// ReductionCheck is how many skipped orders an exhausted reduced
	// search runs before it may pass (0: DefaultReductionCheck; negative:
	// none).
	ReductionCheck int
	// Order, when set, is an explicit release order for a single attempt
	// (RunOnce); the search strategies ignore it.
	Order []OrderStep
	// Faults are the fault kinds the search injects at release units, as
	// choices (faults.go; none by default); MaxFaults bounds the faults of
	// one attempt (default 1). Under reduction a faulted release is a move
	// of its own (faults.go).
	Faults    sched.Faults
	MaxFaults int
}

// Hooks connect a search to the code that runs its attempts.
type Hooks struct {
	// StartWorker, when set, readies worker w (w > 0) before it takes its
	// first attempt. The extra workers start once the first attempt has been
	// recorded without ending the search (a search that fails at once never
	// starts them), and no plan waits for them: the workers already running
	// keep taking plans meanwhile. An error stops the search.
	StartWorker func(ctx context.Context, w int) error
	// Progress, when set, is called after each attempt (from one goroutine
	// at a time).
	Progress func(Progress)
	// NoVictimChoice, when set and true, says that deadlock victims cannot
	// be chosen (PostgreSQL decides by its own timeout): no plan is queued
	// for another victim.
	NoVictimChoice func() bool
}

// Deadlock is one deadlock of an attempt: the actors that waited on each
// other, the aborted one first, and the last decision before PostgreSQL
// broke it (choices after it belong to the course the victim chose).
type Deadlock struct {
	Actors []int
	Step   int
}

// Progress is a snapshot for a live status line.
type Progress struct {
	Attempts, Violations, Frontier int
	Elapsed                        time.Duration
}

// Stop reasons.
const (
	StopExhausted = "frontier exhausted"
	StopFailure   = "stopped at the first failure"
	StopAttempts  = "attempt budget spent"
	StopTime      = "time budget spent"
	StopCancelled = "cancelled"
	StopHarness   = "stopped by a harness error"
	StopMemory    = "frontier memory budget reached"
)

// Summary describes a finished search.
type Summary struct {
	Strategy     Strategy
	Attempted    int
	Completed    int // judged: passed or failed
	Failures     int
	Inconclusive int
	Diverged     int
	// WrongVictims counts, of Diverged, the attempts whose deadlock
	// aborted another victim than the plan's (Report.WrongVictim).
	WrongVictims  int
	Duplicates    int // plans that produced an already-seen schedule
	Pending       int // plans left in the frontier
	PrunedByDepth int // children not queued because of MaxDepth
	PrunedByBytes int // children not queued because of FrontierBytes
	Distinct      int // distinct schedules run
	Retries       int // extra runs of plans ending with a pair
	// Reruns counts the extra runs of plans that could not be followed
	// the first time (a deadlock timer that ended out of the victim
	// order, row-lock waits granted out of queue order, a pool's timing)
	// and were run again.
	Reruns int
	// Under partial-order reduction: Alternatives is how many the
	// unreduced search would have queued from the attempts run, Queued how
	// many the races called for; the rest were skipped as equivalent
	// (orders that differ only by swapping independent units).
	Reduction    Reduction
	Alternatives int
	Queued       int
	// Asleep counts the races found reversed already by a unit asleep at
	// their state (sleep.go); SleepWakes the units queued because an
	// attempt released a unit asleep, repeating an explored order.
	Asleep, SleepWakes int
	// Unjudged counts the attempts the reduction could not judge (no
	// trace: DDL ran, a wait it does not follow): each was expanded at
	// every step, as the unreduced search does.
	Unjudged int
	// Classes is how many equivalence classes the judged attempts fell in
	// (Options.CountClasses): orders with the same units and the same
	// happens-before of the reduction's dependence are one class.
	Classes int
	// FirstDivergence says where the first plan that could not be
	// followed diverged.
	FirstDivergence string
	// LockCorrections counts units made global because PostgreSQL held a
	// relation lock for them outside their classified footprint.
	LockCorrections int
	// Check is what the reduction check found; CheckFailed says that the
	// first failure is a sampled skipped order's.
	Check       ReductionCheck
	CheckFailed bool
	// VictimChoices is how many alternatives chose another deadlock victim.
	VictimChoices int
	// VictimShared counts races a victim choice's attempt left to the
	// attempt that deadlocked (node.victimAfter).
	VictimShared int
	// VictimSequences counts victim choices no plan can express: an
	// attempt deadlocked more than once, and one victim order per attempt
	// cannot choose another victim for a later deadlock while keeping an
	// earlier one's. A search with any is not complete.
	VictimSequences     int
	FirstVictimSequence string
	MaxDepth            int // deepest plan attempted
	StopReason          string
	StopErr             error
	FirstFailure        int // dispatch sequence of the earliest failing attempt, -1 when none
	// FirstFailurePath locates that attempt in the exploration tree (child
	// indices from the first schedule): comparable across shards.
	FirstFailurePath []int32
	Elapsed          time.Duration

	// FaultAttempts counts the attempts that injected a fault.
	FaultAttempts int
}

// Exhausted reports whether every schedule (within MaxDepth, when set) was
// explored.
func (s *Summary) Exhausted() bool { return s.StopReason == StopExhausted }

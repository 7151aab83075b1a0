package search

import (
	"slices"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/pginterleave/interleave/sched"
)

// Trace is an attempt as partial-order reduction sees it: its units as
// events in the order they took effect, each with what it touched. The
// engine builds it from the scheduler's record and PostgreSQL's answers;
// search only compares relation names.
type Trace struct {
	Events []Event
	// Corrections counts the units whose backend held a relation lock
	// outside their transaction's footprint: they and the rest of their
	// transaction were made global.
	Corrections int
}

// EventKind says which part of a unit an event is.
type EventKind uint8

const (
	// Whole: a unit that did not wait: released and taking effect at once.
	Whole EventKind = iota
	// WaitStart: a unit that waited on a lock, at its release (its
	// statement's snapshot is taken then).
	WaitStart
	// WaitEnd: the same unit when its wait ended and it took effect.
	WaitEnd
)

// Event is one unit, or one end of a unit that waited on a lock.
type Event struct {
	Kind  EventKind
	Ref   sched.UnitRef
	Actor int
	// Decision is the decision that released the unit (for a WaitEnd: the
	// decision released just before the wait ended).
	Decision int
	// Blockers are the actors a waiting unit waited on. Queued are the
	// actors it waited behind through them: when it began to wait, a
	// blocker was itself waiting on them (a second waiter for a row lock
	// waits for the first, which waits for the holder). Their commands up
	// to their transaction's end cannot end its wait either.
	Blockers []int
	Queued   []int

	// Global: depends on every event of another actor.
	Global bool
	// Relations read, locked (row locks, FOR KEY SHARE of a parent) and
	// written (sequences as "sequence NAME"), sorted.
	Reads, Locks, Writes []string
	// Immediate are the names in Writes whose writes are visible before
	// the transaction ends (sequences: nextval is not transactional).
	Immediate []string
	// Snapshot: the first statement of a REPEATABLE READ or SERIALIZABLE
	// transaction, which takes the snapshot every later statement of it
	// sees.
	Snapshot bool
	// SnapshotOf, when SnapshotKnown, is everything the REPEATABLE READ
	// transaction whose snapshot the event takes read, locked or wrote
	// until it ended (engine/trace.go): the snapshot matters to it only
	// through those names, so it depends only on the ends that wrote one
	// of them. Not known (every end that wrote counts): SERIALIZABLE, a
	// transaction that ran a global unit or did not end in the attempt.
	SnapshotOf    []string
	SnapshotKnown bool
	// Serializable: part of a SERIALIZABLE transaction.
	Serializable bool
	// EndsTx: ends a transaction (COMMIT, ROLLBACK, an autocommit
	// statement); TxReads, TxWrites and TxLocks are what the transaction
	// did, this unit included.
	EndsTx                     bool
	TxReads, TxWrites, TxLocks []string
	// Aborted: the transaction EndsTx ends rolled back (a ROLLBACK, an
	// error): its writes were never visible to anyone, so a read or a new
	// snapshot does not meet its end. Its locks are released there, and a
	// SERIALIZABLE one's conflicts count until then (a third
	// transaction's failure may depend on whether it is still running:
	// case serializable-aborted-pivot).
	Aborted bool
	// Rechecked, on a unit that may wait: the rows it reads again when a
	// wait for their row locks ends. In READ COMMITTED, an UPDATE, DELETE
	// or SELECT ... FOR UPDATE/SHARE that waited for a row another
	// transaction changed locks and reads that row's newest version when
	// the wait ends (EvalPlanQual), not the version of its snapshot. Set
	// only where the unit is that one statement and every name it touches
	// is one of those rows (engine/trace.go).
	Rechecked []string
	// WaitsOnHolds: the unit is such a statement, it waits for any row
	// lock in Holds of another transaction on those rows (its own mode is
	// FOR SHARE or stronger, without SKIP LOCKED or NOWAIT) and no lock or
	// statement timeout can end that wait. Holds: the rows the unit locked
	// FOR NO KEY UPDATE or FOR UPDATE (it changed them, or returned them
	// under such a locking clause), held until its transaction ends.
	// Failed: the unit ended with an error, which in a transaction block
	// releases the transaction's locks.
	WaitsOnHolds bool
	Holds        []string
	Failed       bool
	// Atomic: the unit is one lock-manager operation and nothing else (an
	// advisory lock function call): two such units released at once
	// behave as one of their two orders (queueDependentPairs).
	Atomic bool
	// OpenAcross: the unit's transaction was open before the unit or
	// stays open after it. Only such a transaction can hold the xmin
	// horizon back while another actor's unit runs; one begun and ended
	// within the unit (autocommit) is over before the next unit starts
	// (engine/trace.go, observePlacement).
	OpenAcross bool
	// Fault is the fault the unit was released with (faults.go): such an
	// event is Global (it ends its session: its transaction rolls back,
	// its locks go, its actor takes another path).
	Fault sched.Fault
}

// dependent reports whether swapping x and y (of different actors), were
// they adjacent, could change what either does or the database: the
// conservative relation of docs/search.md.
func dependent(x, y *Event) bool {
	if broken.Load() {
		return false // the test-only broken rule (check.go)
	}
	if x.Global || y.Global {
		return true
	}
	// Row locks and writes on a common relation: one waits for the other,
	// or their writes land in another order (sequences included).
	if meets(x.Locks, y.Locks, y.Writes) || meets(x.Writes, y.Locks, y.Writes) {
		return true
	}
	// A write that is visible at once (a sequence's nextval) against a
	// read of it.
	if meets(x.Immediate, y.Reads) || meets(y.Immediate, x.Reads) {
		return true
	}
	if visible(x, y) || visible(y, x) {
		return true
	}
	// SERIALIZABLE compares whole relations whatever the row keys: its
	// predicate locks may cover index pages or the relation.
	if x.Serializable && y.Serializable && (meetsRel(x.Reads, y.Writes, y.Locks) || meetsRel(y.Reads, x.Writes, x.Locks) ||
		(x.EndsTx && y.EndsTx && meetsRel(all(x), all(y)))) {
		return true
	}
	return false
}

// visible: x ends a transaction whose writes y would see or whose locks y
// would wait for.
func visible(x, y *Event) bool {
	if !x.EndsTx {
		return false
	}
	if meets(x.TxWrites, y.Locks, y.Writes) || meets(x.TxLocks, y.Locks, y.Writes) {
		return true // what waited for its locks
	}
	if !x.Aborted && meets(x.TxWrites, y.Reads) {
		return true
	}
	if !x.Aborted && y.Snapshot && len(x.TxWrites) > 0 && (!y.SnapshotKnown || meets(x.TxWrites, y.SnapshotOf)) {
		// A new snapshot sees every commit; a REPEATABLE READ
		// transaction sees through it only what it touches.
		return true
	}
	if x.Serializable && y.Serializable && meetsRel(union(x.TxReads, x.TxWrites), y.Reads, y.Writes, y.Locks) {
		return true
	}
	return false
}

// visibleOnly is dependence through visibility alone: a waiting unit's
// release against the events of the actor it waits on, which cannot change
// whether it waits (docs/search.md, "waiting units").
// broken is the test-only switch of check.go, read once per search.
var broken atomic.Bool

func visibleOnly(x, y *Event) bool {
	if broken.Load() {
		return false
	}
	// Nothing is known of what a global event sees or makes visible: its
	// release among the blocker's events may matter (the generated
	// differential found it: a global UPDATE waiting on a transaction that
	// rolled back, whose release was never moved after the blocker's next
	// statement).
	if x.Global || y.Global {
		return true
	}
	if y.Kind == WaitStart && dependent(x, y) {
		// The blocker's command waits too, maybe on what the waiting
		// statement locked before its wait: released before it, it
		// closes a deadlock, after it not (case lock-order-deadlock).
		// A wait ends by its blocker's transaction's end or by a
		// deadlock.
		return true
	}
	if x.Kind == WaitStart && len(x.Rechecked) > 0 {
		// What the blocker's transaction does to the rows the waiting
		// statement locks, it sees at the end of its wait, wherever it was
		// released: the release sees only the rest. Not a row whose
		// relation y writes as a whole (an INSERT, a key that changes): a
		// row deleted and inserted again under its key is a new tuple the
		// wait does not follow, which a later release would see (case
		// rows-wait-reinsert).
		var rows []string
		for _, r := range x.Rechecked {
			if !writesWhole(y.Writes, r) && !writesWhole(y.TxWrites, r) {
				rows = append(rows, r)
			}
		}
		s := *x
		s.Reads, s.Locks, s.Writes = minus(x.Reads, rows), minus(x.Locks, rows), minus(x.Writes, rows)
		x = &s
	}
	return visible(x, y) || visible(y, x) || meets(x.Immediate, y.Reads) || meets(y.Immediate, x.Reads)
}

// writesWhole reports whether writes name the relation of row as a whole.
func writesWhole(writes []string, row string) bool {
	rel, _ := splitName(row)
	for _, w := range writes {
		if r, k := splitName(w); k == "" && r == rel {
			return true
		}
	}
	return false
}

// minus is a without the names in b.
func minus(a, b []string) []string {
	var out []string
	for _, n := range a {
		if !slices.Contains(b, n) {
			out = append(out, n)
		}
	}
	return out
}

func all(e *Event) []string {
	return union(e.TxReads, e.TxWrites, e.TxLocks, e.Reads, e.Writes, e.Locks)
}

// union merges sets of names into one sorted set.
func union(sets ...[]string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range sets {
		for _, n := range s {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	sort.Strings(out)
	return out
}

// meets reports whether a shares a name with any of the others (all
// sorted). A name is a relation, or one row of it (relation, NUL, key:
// footprint.RowName): a row meets its relation and itself, not the
// relation's other rows.
func meets(a []string, others ...[]string) bool {
	for _, b := range others {
		for _, x := range a {
			xr, xk := splitName(x)
			for _, y := range b {
				yr, yk := splitName(y)
				if xr == yr && (xk == "" || yk == "" || xk == yk) {
					return true
				}
			}
		}
	}
	return false
}

// Meets reports whether a name of a is one of b, or a row of a relation b
// names whole, or the other way round: the test every dependence rule
// uses, for code outside search that must agree with it.
func Meets(a, b []string) bool { return meets(a, b) }

// meetsRel is meets on relations alone: rows of one relation meet.
func meetsRel(a []string, others ...[]string) bool {
	for _, b := range others {
		for _, x := range a {
			xr, _ := splitName(x)
			for _, y := range b {
				if yr, _ := splitName(y); xr == yr {
					return true
				}
			}
		}
	}
	return false
}

// splitName is footprint.SplitName (search does not import footprint).
func splitName(n string) (rel, key string) {
	if i := strings.IndexByte(n, 0); i >= 0 {
		return n[:i], n[i+1:]
	}
	return n, ""
}

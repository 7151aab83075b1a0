package search

import (
	"testing"

	"github.com/pginterleave/interleave/sched"
)

// A READ COMMITTED statement that waited for a row lock reads the row again
// when its wait ends: its release inside the blocker's window depends on
// the blocker's commit only through what else it reads.
func TestRecheckedRowsMakeAWaitingReleaseIndependentOfItsBlocker(t *testing.T) {
	r1, r2 := "public.acct\x001", "public.acct\x002"
	trace := func(rechecked []string, reads []string) []Event {
		b := sched.UnitRef{Actor: 1, Unit: 1}
		return []Event{
			{Kind: Whole, Actor: 0, Ref: sched.UnitRef{Actor: 0, Unit: 1}, Writes: []string{r1, r2}, Reads: []string{r1, r2}},
			{Kind: WaitStart, Actor: 1, Ref: b, Blockers: []int{0}, Reads: reads, Locks: []string{r1}, Rechecked: rechecked},
			{Kind: Whole, Actor: 0, Ref: sched.UnitRef{Actor: 0, Unit: 2}, EndsTx: true, TxReads: []string{r1, r2}, TxWrites: []string{r1, r2}},
			{Kind: WaitEnd, Actor: 1, Ref: b, Blockers: []int{0}, Reads: reads, Locks: []string{r1}, Rechecked: rechecked},
		}
	}
	for _, c := range []struct {
		name      string
		rechecked []string
		reads     []string
		want      bool
	}{
		{"the locked row, rechecked", []string{r1}, []string{r1}, false},
		{"the locked row, not rechecked (REPEATABLE READ, say)", nil, []string{r1}, true},
		{"another row the blocker wrote, read by the snapshot", []string{r1}, []string{r1, r2}, true},
	} {
		ev := trace(c.rechecked, c.reads)
		w := waitWindows(ev)
		if got := orderDependent(ev, w, 1, 2); got != c.want {
			t.Errorf("%s: release against the blocker's commit dependent = %v, want %v", c.name, got, c.want)
		}
		// Outside the window, and for the wait's end, nothing changes.
		if !orderDependent(ev, w, 0, 1) {
			t.Errorf("%s: the blocker's write and the release must stay dependent", c.name)
		}
		if !orderDependent(ev, w, 2, 3) {
			t.Errorf("%s: the commit must order the wait's end", c.name)
		}
	}
}

// A statement that would have waited for a row another transaction holds
// (and then read it again) is in a race with the command that took the
// lock, not with the holder's end; not when the holder's transaction may
// have released it (an error) or its lock mode does not make it wait.
func TestARaceWithAHeldRowIsWithItsLocker(t *testing.T) {
	r := "public.acct\x001"
	trace := func(waits, failed bool) *Trace {
		a := func(u int) sched.UnitRef { return sched.UnitRef{Actor: 0, Unit: u} }
		return &Trace{Events: []Event{
			{Kind: Whole, Actor: 0, Ref: a(1), Decision: 1, Reads: []string{r}, Locks: []string{r}, Holds: []string{r}},
			{Kind: Whole, Actor: 0, Ref: a(2), Decision: 2, Reads: []string{r}, Writes: []string{r}, Holds: []string{r}, Failed: failed},
			{Kind: Whole, Actor: 0, Ref: a(3), Decision: 3, EndsTx: true, TxReads: []string{r}, TxWrites: []string{r}, TxLocks: []string{r}},
			{Kind: Whole, Actor: 1, Ref: sched.UnitRef{Actor: 1, Unit: 1}, Decision: 4, Reads: []string{r}, Locks: []string{r},
				Rechecked: []string{r}, WaitsOnHolds: waits},
		}}
	}
	has := func(rs []race, first, second int) bool {
		for _, x := range rs {
			if x.first == first && x.second == second {
				return true
			}
		}
		return false
	}
	rs := races(trace(true, false))
	if !has(rs, 0, 3) || has(rs, 2, 3) {
		t.Errorf("held row: races %v, want the locker's (0, 3) and not the end's (2, 3)", rs)
	}
	for _, tc := range []struct {
		name          string
		waits, failed bool
	}{{"FOR KEY SHARE (does not wait)", false, false}, {"the holder failed (locks released)", true, true}} {
		rs := races(trace(tc.waits, tc.failed))
		if !has(rs, 2, 3) || has(rs, 0, 3) {
			t.Errorf("%s: races %v, want the end's (2, 3) only", tc.name, rs)
		}
	}
}

// A unit that waited is judged asleep by everything it does: its release
// ends nothing (the end is placed at the wait's end), but released
// elsewhere it may not wait and then ends its transaction at once
// (generated seed 73027).
func TestASleepingWaitIsJudgedByItsEnd(t *testing.T) {
	b := sched.UnitRef{Actor: 1, Unit: 1}
	tr := &Trace{Events: []Event{
		{Kind: WaitStart, Actor: 1, Ref: b, Blockers: []int{0}, Reads: []string{"public.slot"}, Writes: []string{"public.slot"}},
		{Kind: Whole, Actor: 0, Ref: sched.UnitRef{Actor: 0, Unit: 1}, Global: true, EndsTx: true},
		{Kind: WaitEnd, Actor: 1, Ref: b, Blockers: []int{0}, Reads: []string{"public.slot"}, Writes: []string{"public.slot"},
			EndsTx: true, TxReads: []string{"public.slot"}, TxWrites: []string{"public.slot"}},
	}}
	snapshot := &Event{Kind: Whole, Actor: 2, Snapshot: true, Serializable: true}
	if dependent(&tr.Events[0], snapshot) {
		t.Fatal("the test needs a release that a new snapshot does not depend on")
	}
	if w := whole(tr, 0); w != &tr.Events[2] || !dependent(w, snapshot) {
		t.Errorf("whole(release) = %+v: a snapshot must depend on the transaction the unit ends", w)
	}
	if whole(tr, 1) != &tr.Events[1] {
		t.Error("an event that did not wait is itself")
	}
}

// A race with the end of a wait whose release may move past its blocker's
// events (the row is read again) is also reversed at the release: the
// wait's end is no decision, and the second event comes after the
// blocker's COMMIT, so only a later release reverses it (generated seed
// 79029: an autocommit DELETE that waited was never run after its
// blocker's next statement).
func TestARaceWithAWaitsEndIsReversedAtItsRelease(t *testing.T) {
	r := "public.slot\x001"
	del := sched.UnitRef{Actor: 1, Unit: 7}
	a := func(u int) sched.UnitRef { return sched.UnitRef{Actor: 0, Unit: u} }
	tr := func(rechecked []string) *Trace {
		return &Trace{Events: []Event{
			{Kind: Whole, Actor: 0, Ref: a(3), Decision: 10, Reads: []string{r}, Writes: []string{r}},
			{Kind: WaitStart, Actor: 1, Ref: del, Decision: 12, Blockers: []int{0}, Reads: []string{r}, Writes: []string{r}, Rechecked: rechecked},
			{Kind: Whole, Actor: 0, Ref: a(5), Decision: 13, EndsTx: true, TxReads: []string{r}, TxWrites: []string{r}},
			{Kind: WaitEnd, Actor: 1, Ref: del, Decision: 13, Blockers: []int{0}, Reads: []string{r}, Writes: []string{r}, Rechecked: rechecked,
				EndsTx: true, TxReads: []string{r}, TxWrites: []string{r}},
			{Kind: Whole, Actor: 0, Ref: a(6), Decision: 14, Reads: []string{r}, Locks: []string{r}},
		}}
	}
	has := func(rs []race, first, second int) bool {
		for _, x := range rs {
			if x.first == first && x.second == second {
				return true
			}
		}
		return false
	}
	rc := tr([]string{r})
	rs := withMovedStarts(rc, races(rc))
	if !has(rs, 3, 4) || !has(rs, 1, 4) {
		t.Fatalf("races %v: want the wait's end against the next statement (3, 4), and the same from the release (1, 4)", rs)
	}
	if has(rs, 1, 2) {
		t.Errorf("races %v: the release and the COMMIT are independent when the row is read again", rs)
	}
	var e explorer
	init, v := e.initials(rc, race{1, 4}, []sched.Candidate{{Ref: del}, {Ref: a(5)}})
	if len(init) != 1 || init[0].Ref != a(5) {
		t.Errorf("initials at the release = %v (events %v), want the blocker's COMMIT", init, v)
	}
	// Without the rule the release races with the COMMIT itself, and
	// nothing is added.
	plain := tr(nil)
	rs = races(plain)
	if !has(rs, 1, 2) {
		t.Errorf("races %v: without the rule the release races with the COMMIT", rs)
	}
	if got := withMovedStarts(plain, rs); len(got) != len(rs) {
		t.Errorf("without the rule nothing is added: %v -> %v", rs, got)
	}
}

// A REPEATABLE READ snapshot depends on the ends that wrote what its
// transaction touches, and only on those when that is known.
func TestARepeatableReadSnapshotDependsOnWhatItsTransactionTouches(t *testing.T) {
	r1, r2 := "public.acct\x001", "public.acct\x002"
	end := func(w string) *Event {
		return &Event{Kind: Whole, Actor: 1, EndsTx: true, TxReads: []string{w}, TxWrites: []string{w}}
	}
	snap := &Event{Kind: Whole, Actor: 0, Snapshot: true, Reads: []string{r1}, SnapshotOf: []string{r1, r2}, SnapshotKnown: true}
	for _, c := range []struct {
		name  string
		end   *Event
		known bool
		want  bool
	}{
		{"a row it reads later", end(r2), true, true},
		{"a row it never touches", end("public.acct\x003"), true, false},
		{"the whole table", end("public.acct"), true, true},
		{"another table", end("public.other"), true, false},
		{"not known (SERIALIZABLE, a global unit)", end("public.other"), false, true},
	} {
		s := *snap
		s.SnapshotKnown = c.known
		if got := dependent(c.end, &s); got != c.want {
			t.Errorf("%s: dependent = %v, want %v", c.name, got, c.want)
		}
	}
}

// A blocker that writes the waited row's relation as a whole (an INSERT
// that may put a new tuple under the key, after a DELETE) keeps the
// release and its end dependent, and makes no held-row pair equivalent
// (cases rows-wait-reinsert and rows-wait-reinsert-held).
func TestAWaitDoesNotFollowAReinsertedKey(t *testing.T) {
	r, rel := "public.slot\x001", "public.slot"
	b := sched.UnitRef{Actor: 1, Unit: 1}
	ev := []Event{
		{Kind: Whole, Actor: 0, Ref: sched.UnitRef{Actor: 0, Unit: 1}, Reads: []string{r}, Writes: []string{r}, Holds: []string{r}},
		{Kind: WaitStart, Actor: 1, Ref: b, Blockers: []int{0}, Reads: []string{r}, Writes: []string{r}, Rechecked: []string{r}, WaitsOnHolds: true},
		{Kind: Whole, Actor: 0, Ref: sched.UnitRef{Actor: 0, Unit: 2}, EndsTx: true, TxReads: []string{r}, TxWrites: []string{rel, r}},
		{Kind: WaitEnd, Actor: 1, Ref: b, Blockers: []int{0}, Reads: []string{r}, Writes: []string{r}, Rechecked: []string{r}, WaitsOnHolds: true},
	}
	if !orderDependent(ev, waitWindows(ev), 1, 2) {
		t.Error("the release must depend on a COMMIT whose transaction inserted into the relation")
	}
	// The same without the whole-relation write: independent.
	ev[2].TxWrites = []string{r}
	if orderDependent(ev, waitWindows(ev), 1, 2) {
		t.Error("without an insert the release is independent of the COMMIT (the row is read again)")
	}
	// A statement released later, while the row is held.
	later := []Event{
		ev[0],
		{Kind: Whole, Actor: 0, Ref: sched.UnitRef{Actor: 0, Unit: 2}, Writes: []string{rel}},
		{Kind: Whole, Actor: 0, Ref: sched.UnitRef{Actor: 0, Unit: 3}, EndsTx: true, TxReads: []string{r}, TxWrites: []string{rel, r}},
		{Kind: Whole, Actor: 1, Ref: b, Reads: []string{r}, Writes: []string{r}, Rechecked: []string{r}, WaitsOnHolds: true},
	}
	if h := newHolds(later); h.blocks(1, 3) {
		t.Error("a hold whose transaction inserts into the relation must not make the release equivalent")
	}
	later[2].TxWrites, later[1].Writes = []string{r}, []string{r}
	if h := newHolds(later); !h.blocks(1, 3) {
		t.Error("a hold whose transaction writes only the row makes the release equivalent")
	}
}

// TestARolledBackTransactionReleasesOnlyLocks: the end of a transaction
// that rolled back meets what waits for its locks (a write or a lock of a
// row it wrote or locked) and, SERIALIZABLE, the serializable commands
// its conflicts concern, not a read nor a new snapshot (its writes were
// never visible); a commit meets all of them.
func TestARolledBackTransactionReleasesOnlyLocks(t *testing.T) {
	end := func(aborted bool) *Event {
		return &Event{Kind: Whole, Actor: 0, EndsTx: true, Aborted: aborted, Serializable: true,
			TxReads: []string{"public.b"}, TxWrites: []string{"public.a"}}
	}
	read := &Event{Kind: Whole, Actor: 1, Reads: []string{"public.a"}}
	write := &Event{Kind: Whole, Actor: 1, Writes: []string{"public.a"}}
	lock := &Event{Kind: Whole, Actor: 1, Locks: []string{"public.a"}}
	snapshot := &Event{Kind: Whole, Actor: 1, Snapshot: true}
	serialRead := &Event{Kind: Whole, Actor: 1, Reads: []string{"public.b"}, Serializable: true}
	serialEnd := &Event{Kind: Whole, Actor: 1, EndsTx: true, Serializable: true, TxReads: []string{"public.a"}}
	for _, c := range []struct {
		name    string
		y       *Event
		aborted bool // dependent on the aborted end
	}{
		{"read", read, false}, {"write", write, true}, {"lock", lock, true}, {"snapshot", snapshot, false},
		{"serializable read", serialRead, true}, {"serializable end", serialEnd, true},
	} {
		if got := dependent(end(true), c.y); got != c.aborted {
			t.Errorf("rolled back against %s: dependent %v, want %v", c.name, got, c.aborted)
		}
		if !dependent(end(false), c.y) {
			t.Errorf("committed against %s: independent", c.name)
		}
	}
}

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

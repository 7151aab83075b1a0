package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/pginterleave/interleave/sched"
)

func TestOutOfQueueComparesWaitEnds(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	// c waits for a's row; b waits behind c (on c's backend).
	c := &sched.UnitRecord{Ref: sched.UnitRef{Actor: 2, Unit: 3}, BackendPID: 30, Completed: true,
		LockWaits: []sched.LockWait{{At: ms(10), Blockers: []int{0}, PIDs: []uint32{10}}}}
	b := &sched.UnitRecord{Ref: sched.UnitRef{Actor: 1, Unit: 3}, BackendPID: 20, Completed: true,
		LockWaits: []sched.LockWait{{At: ms(12), Blockers: []int{2}, PIDs: []uint32{30}}}}
	for _, tc := range []struct {
		name     string
		c, b     time.Duration // completion times
		bFailed  bool
		outOfOrd bool
	}{
		{"in queue order", ms(20), ms(30), false, false},
		{"the second waiter first", ms(30), ms(20), false, true},
		{"the second waiter failed first (a timeout, a deadlock)", ms(30), ms(20), true, false},
	} {
		c.SQLState = ""
		c.CompletedAt, b.CompletedAt = tc.c, tc.b
		b.SQLState = ""
		if tc.bFailed {
			b.SQLState = "55P03"
		}
		why := outOfQueue(&sched.Result{Units: []*sched.UnitRecord{c, b}})
		if (why != "") != tc.outOfOrd {
			t.Errorf("%s: %q", tc.name, why)
		}
		if why != "" && !strings.Contains(why, "out of queue order") {
			t.Errorf("%s: %q does not say what happened", tc.name, why)
		}
	}
	// The first waiter was a deadlock victim: its locks went at the abort,
	// before its error reached the client.
	b.SQLState = ""
	c.SQLState = "40P01"
	c.CompletedAt, b.CompletedAt = ms(30), ms(20)
	if why := outOfQueue(&sched.Result{Units: []*sched.UnitRecord{c, b}}); why != "" {
		t.Errorf("the first waiter failed: %q", why)
	}
	c.SQLState = ""
	// A backend that was not waiting when b began to wait on it: no queue.
	c.LockWaits[0].At = ms(13)
	c.CompletedAt, b.CompletedAt = ms(30), ms(20)
	if why := outOfQueue(&sched.Result{Units: []*sched.UnitRecord{c, b}}); why != "" {
		t.Errorf("c seen waiting after b: %q", why)
	}
}

package engine

import (
	"fmt"

	"github.com/pginterleave/interleave/sched"
)

// outOfQueue checks that waits for one lock ended in the order they
// queued. A unit that waited on a backend whose own unit was itself
// waiting (the second waiter for a row lock waits for the first, which
// waits for the holder) can only go on when that backend's unit has: the
// backend's transaction cannot end while its unit waits. When the second
// one completed first, and both without an error, PostgreSQL granted out
// of queue order: in READ COMMITTED, after the holder changed the row, both waiters
// follow the row to its new version, and whichever gets there first locks
// it. The reduction takes the queue order for the order the waits end, so
// such an attempt is not the plan's: it runs again, as an attempt whose
// deadlock took another victim does. It returns why, or "".
func outOfQueue(res *sched.Result) string {
	if res == nil {
		return ""
	}
	byPID := map[uint32][]*sched.UnitRecord{}
	for _, u := range res.Units {
		if u.BackendPID != 0 && len(u.LockWaits) > 0 {
			byPID[u.BackendPID] = append(byPID[u.BackendPID], u)
		}
	}
	for _, v := range res.Units {
		if len(v.LockWaits) == 0 || !v.Completed || v.SQLState != "" {
			continue
		}
		for _, lw := range v.LockWaits {
			for _, pid := range lw.PIDs {
				for _, w := range byPID[pid] {
					if w == v || len(w.LockWaits) == 0 || w.LockWaits[0].At > lw.At {
						continue // not seen waiting before v waited on it
					}
					if w.Completed && w.CompletedAt <= lw.At {
						continue // done before v waited on its backend
					}
					if !w.Completed || w.SQLState != "" {
						// An error (a deadlock victim, a timeout) releases
						// its transaction's locks before its reply arrives;
						// nothing is known of one that never completed.
						continue
					}
					if w.CompletedAt > v.CompletedAt {
						return fmt.Sprintf("unit %s waited behind unit %s for a lock and went on first (PostgreSQL granted out of queue order)", v.Ref, w.Ref)
					}
				}
			}
		}
	}
	return ""
}

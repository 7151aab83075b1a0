package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pginterleave/interleave/sched"
	"github.com/pginterleave/interleave/search"
)

// Deadlock victims. PostgreSQL aborts, of the backends in a cycle of lock
// waits, the first whose deadlock_timeout ends after the cycle closed: a
// waiter runs its deadlock check once, deadlock_timeout after it began to
// wait. The search chooses victims by giving each actor a timeout for its
// place in a victim order (search.VictimRank): the first in the order has
// the shortest. That holds only when the cycle closes before the first's
// check and no later member's check comes between; the times in between
// are the scheduler's (a lock wait seen, a decision, a send), a few
// milliseconds on a quiet machine and far more on a loaded one.
//
// So the timeouts are short, and every deadlock is checked against the
// order: PostgreSQL's error names the cycle's processes in its DETAIL, and
// the aborted actor must be the first of them in the order. An attempt
// whose victim was another is a plan that could not be followed (the
// search runs it again; a replay repeats it), and the worker stretches its
// timeouts for the attempts that follow, up to a level as patient as the
// fixed timeouts of before (300 ms, then 1.5 s more per place). A victim
// chosen by a timer that fired out of order is never taken for the planned
// one.

// runPlanned runs an attempt under the policy newPolicy makes, again (with
// longer timeouts, a new policy) when a deadlock aborted another victim
// than victims plans, at most search.DivergeRetries times: for the runs
// that follow a recorded or chosen order (replay, minimize, explain).
func (w *worker) runPlanned(ctx context.Context, sc *Scenario, newPolicy func() sched.Policy, victims []int) *attemptResult {
	r := w.run(ctx, sc, newPolicy(), victims)
	for try := 0; r.WrongVictim != "" && try < search.DivergeRetries && ctx.Err() == nil; try++ {
		r = w.run(ctx, sc, newPolicy(), victims)
	}
	return r
}

// victimTimers is, per stretch level, the first place's deadlock_timeout
// and the step to each next place. A deadlock with the first place as its
// victim costs its attempt about the first; the last level is the patient
// one.
var victimTimers = [...]struct{ first, step time.Duration }{
	{25 * time.Millisecond, 20 * time.Millisecond},
	{200 * time.Millisecond, 200 * time.Millisecond},
	{1500 * time.Millisecond, 1500 * time.Millisecond},
}

// deadlockTimeout is the deadlock_timeout of place rank in the victim order
// at stretch level.
func deadlockTimeout(rank, level int) time.Duration {
	t := victimTimers[min(max(level, 0), len(victimTimers)-1)]
	return t.first + time.Duration(rank)*t.step
}

// deadlockOptions are the command-line options an actor's backends start
// with, given by its proxy: its deadlock_timeout for its place in the
// victim order; none where the role may not set it.
func (w *worker) deadlockOptions(rank, level int) string {
	if w.env.noVictimChoice.Load() {
		return ""
	}
	return fmt.Sprintf("-c deadlock_timeout=%dms", deadlockTimeout(rank, level).Milliseconds())
}

// timerScale is a worker's stretch level and how many deadlocks in a row
// went as planned at it.
type timerScale struct {
	level, planned int
}

// calmAfter is how many deadlocks in a row must go as planned before the
// timeouts shrink a level again.
const calmAfter = 8

// note records how an attempt's deadlocks went: a wrong victim stretches
// the timeouts, a run of planned ones shrinks them.
func (t *timerScale) note(deadlocks int, wrong bool) {
	switch {
	case wrong:
		t.level, t.planned = min(t.level+1, len(victimTimers)-1), 0
	case deadlocks > 0:
		if t.planned += deadlocks; t.planned >= calmAfter && t.level > 0 {
			t.level, t.planned = t.level-1, 0
		}
	}
}

// wrongVictims checks each deadlock of an attempt against the victim order
// it ran with (rank, by actor): the actor PostgreSQL aborted must come
// first, among the cycle's actors, in that order. It returns why not, or
// "" when every victim was the planned one, and how many deadlocks it saw.
func wrongVictims(res *sched.Result, rank []int) (why string, deadlocks int) {
	if res == nil {
		return "", 0
	}
	actorOf := map[uint32]int{}
	for _, l := range res.Lanes {
		if l.BackendPID != 0 {
			actorOf[l.BackendPID] = l.Actor
		}
	}
	for _, u := range res.Units {
		if u.BackendPID != 0 {
			actorOf[u.BackendPID] = u.Ref.Actor
		}
	}
	for _, u := range res.Units {
		if u.SQLState != sched.SQLStateDeadlock {
			continue
		}
		deadlocks++
		if why != "" || u.Ref.Actor >= len(rank) {
			continue
		}
		first := u.Ref.Actor
		for _, pid := range cyclePIDs(u.DeadlockDetail) {
			if a, ok := actorOf[pid]; ok && a < len(rank) && rank[a] < rank[first] {
				first = a
			}
		}
		if first != u.Ref.Actor {
			why = fmt.Sprintf("PostgreSQL aborted actor %d as a deadlock victim, but actor %d, before it in the planned victim order, was in the same cycle (their deadlock timeouts did not end in the planned order)", u.Ref.Actor, first)
		}
	}
	return why, deadlocks
}

// cyclePIDs reads the process ids of a deadlock error's DETAIL: PostgreSQL
// writes one line per member of the cycle, "Process N waits for ...;
// blocked by process M." (translated under lc_messages, the numbers kept),
// so the first number of each line is a member's pid. The numbers after
// it (transaction ids, oids in the lock's description) are not read.
func cyclePIDs(detail string) []uint32 {
	var out []uint32
	for _, line := range strings.Split(detail, "\n") {
		i := strings.IndexAny(line, "0123456789")
		if i < 0 {
			continue
		}
		j := i
		for j < len(line) && line[j] >= '0' && line[j] <= '9' {
			j++
		}
		if n, err := strconv.ParseUint(line[i:j], 10, 32); err == nil {
			out = append(out, uint32(n))
		}
	}
	return out
}

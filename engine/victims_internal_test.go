package engine

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pginterleave/interleave/pgserver"
	"github.com/pginterleave/interleave/sched"
)

func TestCyclePIDsReadsTheFirstNumberOfEachLine(t *testing.T) {
	detail := "Process 4101 waits for ShareLock on transaction 755; blocked by process 4102.\n" +
		"Process 4102 waits for ShareLock on transaction 756; blocked by process 4103.\n" +
		"Prozess 4103 wartet auf ShareLock-Sperre auf Transaktion 754; blockiert von Prozess 4101."
	got := fmt.Sprint(cyclePIDs(detail))
	if got != "[4101 4102 4103]" {
		t.Fatalf("cyclePIDs = %s, want [4101 4102 4103]", got)
	}
	if p := cyclePIDs(""); len(p) != 0 {
		t.Fatalf("cyclePIDs of nothing = %v", p)
	}
}

// A deadlock whose DETAIL names an actor before the aborted one in the
// victim order is a wrong victim; one that names only later actors, or
// backends that are no actor's, is not.
func TestWrongVictimsComparesTheCycleWithTheOrder(t *testing.T) {
	res := func(victim int, detail string) *sched.Result {
		r := &sched.Result{}
		for a := 0; a < 3; a++ {
			r.Lanes = append(r.Lanes, sched.LaneInfo{Actor: a, BackendPID: uint32(100 + a)})
		}
		r.Units = append(r.Units, &sched.UnitRecord{Ref: sched.UnitRef{Actor: victim}, BackendPID: uint32(100 + victim), SQLState: sched.SQLStateDeadlock, DeadlockDetail: detail})
		return r
	}
	cycle := "Process 100 waits for ShareLock on transaction 7; blocked by process 101.\nProcess 101 waits for ShareLock on transaction 8; blocked by process 100."
	for _, tc := range []struct {
		victim int
		rank   []int
		detail string
		wrong  bool
	}{
		{0, []int{0, 1, 2}, cycle, false},
		{1, []int{0, 1, 2}, cycle, true},
		{1, []int{1, 0, 2}, cycle, false},
		{1, []int{0, 1, 2}, "Process 101 waits for ShareLock on transaction 8; blocked by process 999.\nProcess 999 waits for ShareLock on transaction 7; blocked by process 101.", false},
		{2, []int{2, 1, 0}, "", false},
	} {
		why, n := wrongVictims(res(tc.victim, tc.detail), tc.rank)
		if n != 1 || (why != "") != tc.wrong {
			t.Errorf("victim %d, rank %v: %d deadlocks, wrong %q; want wrong=%v", tc.victim, tc.rank, n, why, tc.wrong)
		}
	}
	var s timerScale
	s.note(1, true)
	s.note(1, true)
	s.note(1, true)
	if s.level != len(victimTimers)-1 {
		t.Fatalf("level %d after three wrong victims, want the last, %d", s.level, len(victimTimers)-1)
	}
	s.note(calmAfter, false)
	if s.level != len(victimTimers)-2 {
		t.Fatalf("level %d after %d planned deadlocks, want one less", s.level, calmAfter)
	}
}

// cycleScenario: three transfers around a cycle of accounts, each locks
// its own account then the next; units 0 BEGIN, 1 its own row, 2 the next
// row, 3 COMMIT. None retries.
func cycleScenario() Scenario {
	return Scenario{
		Name: "cycle",
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, "CREATE TABLE accounts (id int PRIMARY KEY, bal int NOT NULL); INSERT INTO accounts VALUES (1, 0), (2, 0), (3, 0)")
			return err
		},
		Actors:            []Actor{{Name: "a", Run: transferRun(1, 2)}, {Name: "b", Run: transferRun(2, 3)}, {Name: "c", Run: transferRun(3, 1)}},
		HandleActorErrors: true,
		Invariant:         func(context.Context, *pgx.Conn, []ActorResult) error { return nil },
	}
}

// actorsPolicy releases the actors' units round by round (a, b, c, a, b,
// c, ...): the cycle closes with c's second update. pause, when set, is
// slept before that release.
type actorsPolicy struct {
	next  int
	pause time.Duration
	slept bool
}

func (p *actorsPolicy) Choose(step int, cands []sched.Candidate) ([]int, error) {
	for i, c := range cands {
		if c.Ref.Actor == p.next%3 {
			if c.Ref.Actor == 2 && c.Ref.Unit == 2 && p.pause > 0 && !p.slept {
				p.slept = true
				time.Sleep(p.pause)
			}
			p.next++
			return []int{i}, nil
		}
	}
	return []int{0}, nil
}

// victimOf is the actor whose error was PostgreSQL's 40P01, or -1.
func victimOf(r *attemptResult) int {
	v := -1
	for i, a := range r.Actors {
		var pgErr *pgconn.PgError
		if errors.As(a.Err, &pgErr) && pgErr.Code == sched.SQLStateDeadlock {
			if v >= 0 {
				return -2
			}
			v = i
		}
	}
	return v
}

// TestDeadlockVictimsFollowTheOrder: with each actor first in the victim
// order, PostgreSQL aborts that actor, whether it closed the cycle or
// waited in it; and when the closing release comes too late for the first
// actor's timer (a pause the policy takes), the attempt says the victim
// was not the planned one and the worker's timeouts grow until it is.
func TestDeadlockVictimsFollowTheOrder(t *testing.T) {
	ctx, w := testWorker(t)
	sc := cycleScenario()
	for _, victims := range [][]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}} {
		r := w.runPlanned(ctx, &sc, func() sched.Policy { return &actorsPolicy{} }, victims)
		if r.Outcome != OutcomePass {
			t.Fatalf("victims %v: outcome %s: %s", victims, r.Outcome, r.Message)
		}
		if r.WrongVictim != "" {
			t.Fatalf("victims %v: %s, three times", victims, r.WrongVictim)
		}
		if got := victimOf(r); got != victims[0] {
			t.Fatalf("victims %v: actor %d was aborted, want %d", victims, got, victims[0])
		}
	}

	// A pause longer than the first two levels' first timeout before the
	// closing release: a's check runs before the cycle closes, so c's own
	// ends the cycle, until the timeouts outlast the pause.
	w.timers = timerScale{}
	pause := victimTimers[1].first + victimTimers[1].step + 100*time.Millisecond
	r := w.run(ctx, &sc, &actorsPolicy{pause: pause}, []int{0, 1, 2})
	if r.WrongVictim == "" || victimOf(r) == 0 {
		t.Fatalf("a pause of %v before the cycle closed, and actor %d was aborted as planned (wrong victim %q)", pause, victimOf(r), r.WrongVictim)
	}
	t.Logf("first: %s", r.WrongVictim)
	if w.timers.level != 1 {
		t.Fatalf("timeouts at level %d after a wrong victim, want 1", w.timers.level)
	}
	r = w.run(ctx, &sc, &actorsPolicy{pause: pause}, []int{0, 1, 2})
	r = w.run(ctx, &sc, &actorsPolicy{pause: pause}, []int{0, 1, 2})
	if r.WrongVictim != "" || victimOf(r) != 0 {
		t.Fatalf("at level %d (first timeout %v), actor %d was aborted: %s", w.timers.level, victimTimers[w.timers.level].first, victimOf(r), r.WrongVictim)
	}
}

// TestNothingIsReleasedDuringADeadlock: c's units stay pending while a
// and b deadlock; the next release comes after PostgreSQL aborted the
// victim, whatever the deadlock timeouts, so the units pending at each
// decision do not depend on when a timer ended.
func TestNothingIsReleasedDuringADeadlock(t *testing.T) {
	ctx, w := testWorker(t)
	// a moves 1 to 2, b 2 to 1: they deadlock; c moves 3 to 3 beside them.
	sc := cycleScenario()
	sc.Actors[1].Run = transferRun(2, 1)
	sc.Actors[2].Run = transferRun(3, 3)
	for _, level := range []int{0, 1} {
		w.timers = timerScale{level: level}
		r := w.run(ctx, &sc, &actorsPolicy{}, nil)
		if r.Outcome != OutcomePass || r.Sched == nil {
			t.Fatalf("outcome %s: %s", r.Outcome, r.Message)
		}
		var victim *sched.UnitRecord
		for _, u := range r.Sched.Units {
			if u.SQLState == sched.SQLStateDeadlock {
				victim = u
			}
		}
		if victim == nil {
			t.Fatalf("level %d: no deadlock", level)
		}
		// The cycle closed at the last release of a's or b's units before
		// the victim's error; c's units must not be released between.
		var closed time.Duration
		for _, u := range r.Sched.Units {
			if u.Ref.Actor != 2 && u.ReleaseStep >= 0 && u.ReleasedAt < victim.CompletedAt && u.ReleasedAt > closed {
				closed = u.ReleasedAt
			}
		}
		released := 0
		for _, u := range r.Sched.Units {
			if u.Ref.Actor == 2 && u.ReleaseStep >= 0 {
				released++
				if u.ReleasedAt > closed && u.ReleasedAt < victim.CompletedAt {
					t.Errorf("level %d: c's unit %v was released at %v, after the cycle closed at %v and before the deadlock ended at %v", level, u.Ref, u.ReleasedAt, closed, victim.CompletedAt)
				}
			}
		}
		if released < 4 {
			t.Fatalf("level %d: c released %d units, want its four", level, released)
		}
	}
}

// transferRun moves 1 from account from to account to in one transaction
// of simple queries, without retrying.
func transferRun(from, to int) func(context.Context, string) (any, error) {
	return func(ctx context.Context, cs string) (any, error) {
		c, err := pgx.Connect(ctx, cs)
		if err != nil {
			return nil, err
		}
		defer c.Close(context.Background())
		for _, q := range []string{"BEGIN", fmt.Sprintf("UPDATE accounts SET bal = bal - 1 WHERE id = %d", from),
			fmt.Sprintf("UPDATE accounts SET bal = bal + 1 WHERE id = %d", to), "COMMIT"} {
			if _, err := c.Exec(ctx, q, pgx.QueryExecModeSimpleProtocol); err != nil {
				return nil, err
			}
		}
		return "moved", nil
	}
}

// testWorker starts a managed server and one worker on it, both stopped
// when the test ends.
func testWorker(t *testing.T) (context.Context, *worker) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	srv, err := pgserver.StartLocal(ctx, pgserver.LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	o, err := Options{Server: ServerOptions{Use: srv}}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	e, err := openEnv(ctx, o, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.close() })
	w, err := e.newWorker(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.close(ctx) })
	return ctx, w
}

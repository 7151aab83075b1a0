package interleave_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	neturl "net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/capture"
	"github.com/pginterleave/interleave/internal/testkit/fixture"
	"github.com/pginterleave/interleave/netproxy"
)

func connect(ctx context.Context, cs string) (*pgx.Conn, error) { return pgx.Connect(ctx, cs) }

func opts() interleave.Options {
	return interleave.Options{Server: interleave.ServerOptions{Use: server}}
}

func TestCounterRaceFoundOnFirstAttempt(t *testing.T) {
	res, err := interleave.Explore(fixture.Context(t), fixture.Counter(false), opts())
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomeViolation || res.Summary.Attempted != 1 || res.ExitCode() != 1 {
		t.Fatalf("outcome %s after %d attempts (exit %d); want a violation on attempt 1 (exit 1)", res.Outcome, res.Summary.Attempted, res.ExitCode())
	}
	if !strings.Contains(res.Message, "got 1, want 2") {
		t.Fatalf("message %q", res.Message)
	}
	a := res.Artifact
	var order []string
	for _, d := range a.Schedule.Decisions {
		for _, r := range d.Release {
			u := findUnit(a, r)
			if !u.Prepare {
				order = append(order, r.Actor+":"+strings.Join(u.SQL, ";"))
			}
		}
	}
	want := []string{
		"alice:SELECT n FROM counter WHERE id = 1", "bob:SELECT n FROM counter WHERE id = 1",
		"alice:UPDATE counter SET n = $1 WHERE id = 1", "bob:UPDATE counter SET n = $1 WHERE id = 1",
	}
	if strings.Join(order, "|") != strings.Join(want, "|") {
		t.Fatalf("release order\n got %v\nwant %v", order, want)
	}
	if _, err := artifact.Encode(a); err != nil {
		t.Fatal(err)
	}
	// The failing attempt keeps its byte-exact capture.
	if a.Capture == nil {
		t.Fatal("the failing attempt has no capture")
	}
	raw, err := a.Capture.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	recs, err := capture.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	var sent bytes.Buffer
	for _, r := range recs {
		if r.Dir == netproxy.ClientToServer {
			sent.Write(r.Data)
		}
	}
	for _, u := range a.Units {
		for _, q := range u.SQL {
			if !bytes.Contains(sent.Bytes(), []byte(q)) {
				t.Errorf("the capture lacks %q", q)
			}
		}
	}
	if err := artifact.Validate(a); err != nil {
		t.Fatalf("the artifact does not validate: %v", err)
	}
}

func findUnit(a *artifact.Artifact, r artifact.UnitRef) *artifact.Unit {
	for i := range a.Units {
		u := &a.Units[i]
		if u.Actor == r.Actor && u.Conn == r.Conn && u.Unit == r.Unit {
			return u
		}
	}
	return nil
}

// TestCounterFixedExhaustsEveryOrder: without reduction the fixed counter
// runs each of its 6 orders once; with it, one order of each equivalence
// class, every class the full search has.
func TestCounterFixedExhaustsEveryOrder(t *testing.T) {
	full := opts()
	if err := full.Search.Reduction.Set("none"); err != nil {
		t.Fatal(err)
	}
	full.Search.CountClasses = true
	res, err := interleave.Explore(fixture.Context(t), fixture.Counter(true), full)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	if res.Outcome != interleave.OutcomePass || s.Attempted != 6 || s.Completed != 6 || !s.Exhausted() || s.Duplicates != 0 {
		t.Fatalf("outcome %s, %d attempted, %d completed, exhausted %v, duplicates %d; want pass after exactly 6 distinct orders",
			res.Outcome, s.Attempted, s.Completed, s.Exhausted(), s.Duplicates)
	}
	reduced := opts()
	reduced.Search.CountClasses = true
	red, err := interleave.Explore(fixture.Context(t), fixture.Counter(true), reduced)
	if err != nil {
		t.Fatal(err)
	}
	r := red.Summary
	if red.Outcome != interleave.OutcomePass || !r.Exhausted() || r.Classes != s.Classes || r.Attempted != r.Classes || r.Duplicates != 0 {
		t.Fatalf("reduced: outcome %s, %d orders in %d classes (exhausted %v, duplicates %d); the full search's 6 orders fell in %d classes: want one order of each",
			red.Outcome, r.Attempted, r.Classes, r.Exhausted(), r.Duplicates, s.Classes)
	}
}

// TestRowLockIsRecordedAsLockWait: alice holds a row lock (SELECT ... FOR
// UPDATE in an open transaction) when bob's UPDATE is released. Bob's unit
// must be recorded as waiting on alice, and the attempt must finish.
func TestRowLockIsRecordedAsLockWait(t *testing.T) {
	sc := interleave.Scenario{
		Name: "rowlock",
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, "CREATE TABLE t (id int PRIMARY KEY, v int); INSERT INTO t VALUES (1, 0)")
			return err
		},
		Actors: []interleave.Actor{
			{Name: "alice", Run: func(ctx context.Context, cs string) (any, error) {
				c, err := connect(ctx, cs)
				if err != nil {
					return nil, err
				}
				defer c.Close(ctx)
				tx, err := c.Begin(ctx)
				if err != nil {
					return nil, err
				}
				if _, err := tx.Exec(ctx, "SELECT v FROM t WHERE id = 1 FOR UPDATE"); err != nil {
					return nil, err
				}
				return nil, tx.Commit(ctx)
			}},
			{Name: "bob", Run: func(ctx context.Context, cs string) (any, error) {
				c, err := connect(ctx, cs)
				if err != nil {
					return nil, err
				}
				defer c.Close(ctx)
				if _, err := c.Exec(ctx, "SELECT 1"); err != nil {
					return nil, err
				}
				_, err = c.Exec(ctx, "UPDATE t SET v = v + 1 WHERE id = 1")
				return nil, err
			}},
		},
		Invariant: func(context.Context, *pgx.Conn, []interleave.ActorResult) error { return nil },
	}
	o := opts()
	o.Search.MaxAttempts = 1
	res, err := interleave.RunOnce(fixture.Context(t), sc, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomePass {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Message)
	}
	var waited *artifact.Unit
	for i := range res.Artifact.Units {
		u := &res.Artifact.Units[i]
		if len(u.LockWaits) > 0 {
			waited = u
		}
	}
	if waited == nil {
		t.Fatalf("no unit recorded a lock wait; units: %+v", res.Artifact.Units)
	}
	if waited.Actor != "bob" || !strings.HasPrefix(waited.SQL[0], "UPDATE") || fmt.Sprint(waited.LockWaits[0].BlockingActors) != "[alice]" {
		t.Fatalf("lock wait recorded on %s %v blocked by %v; want bob's UPDATE blocked by alice", waited.Actor, waited.SQL, waited.LockWaits[0].BlockingActors)
	}
	// Bob's UPDATE was released before alice's COMMIT and completed only after
	// the COMMIT was released (PostgreSQL may answer bob before alice).
	var commit *artifact.Unit
	for i := range res.Artifact.Units {
		u := &res.Artifact.Units[i]
		if u.Actor == "alice" && len(u.Tags) > 0 && u.Tags[0] == "COMMIT" {
			commit = u
		}
	}
	if commit == nil || !(waited.ReleaseStep < commit.ReleaseStep && waited.CompletedUS > commit.ReleasedUS) {
		t.Fatalf("bob's UPDATE (%+v) should complete after alice's COMMIT (%+v)", waited, commit)
	}
}

// deadlockScenario: alice updates rows 1 then 2, bob 2 then 1, each in a
// transaction; the invariant fails with any actor's error.
func deadlockScenario() interleave.Scenario {
	swap := func(first, second int) func(ctx context.Context, cs string) (any, error) {
		return func(ctx context.Context, cs string) (any, error) {
			c, err := connect(ctx, cs)
			if err != nil {
				return nil, err
			}
			defer c.Close(ctx)
			tx, err := c.Begin(ctx)
			if err != nil {
				return nil, err
			}
			defer tx.Rollback(ctx)
			for _, id := range []int{first, second} {
				if _, err := tx.Exec(ctx, "UPDATE acct SET bal = bal + 1 WHERE id = $1", id); err != nil {
					return nil, err
				}
			}
			return nil, tx.Commit(ctx)
		}
	}
	return interleave.Scenario{
		Name: "deadlock",
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, "CREATE TABLE acct (id int PRIMARY KEY, bal int); INSERT INTO acct VALUES (1, 0), (2, 0)")
			return err
		},
		Actors:            []interleave.Actor{{Name: "alice", Run: swap(1, 2)}, {Name: "bob", Run: swap(2, 1)}},
		HandleActorErrors: true,
		Invariant: func(_ context.Context, _ *pgx.Conn, rs []interleave.ActorResult) error {
			for _, r := range rs {
				if r.Err != nil {
					return fmt.Errorf("%s: %w", r.Actor, r.Err)
				}
			}
			return nil
		},
	}
}

func TestDeadlockEndsWith40P01(t *testing.T) {
	sc := deadlockScenario()
	res, err := interleave.RunOnce(fixture.Context(t), sc, opts())
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomeViolation || !strings.Contains(res.Message, "40P01") {
		t.Fatalf("outcome %s %q; want the deadlock handed to the invariant", res.Outcome, res.Message)
	}
	found := false
	for _, u := range res.Artifact.Units {
		if u.SQLState == "40P01" {
			found = true
			if len(u.LockWaits) == 0 {
				t.Errorf("the deadlock victim's unit has no recorded lock wait")
			}
		}
	}
	if !found {
		t.Fatalf("no unit recorded SQLSTATE 40P01")
	}
}

func TestHangingActorIsInconclusiveWithinDeadline(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(ctx context.Context, cs string) (any, error)
	}{
		{"in SQL", func(ctx context.Context, cs string) (any, error) {
			c, err := connect(ctx, cs)
			if err != nil {
				return nil, err
			}
			defer c.Close(context.Background())
			_, err = c.Exec(ctx, "SELECT pg_sleep(3600)")
			return nil, err
		}},
		{"in Go code ignoring its context", func(ctx context.Context, cs string) (any, error) {
			c, err := connect(ctx, cs)
			if err != nil {
				return nil, err
			}
			defer c.Close(context.Background())
			if _, err := c.Exec(ctx, "SELECT 1"); err != nil {
				return nil, err
			}
			select {} // never returns
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := fixture.Counter(false)
			sc.Actors[1].Run = tc.run
			o := opts()
			o.AttemptTimeout = 2 * time.Second
			start := time.Now()
			res, err := interleave.RunOnce(fixture.Context(t), sc, o)
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != interleave.OutcomeInconclusive || res.ExitCode() != 4 {
				t.Fatalf("outcome %s (%s); want inconclusive", res.Outcome, res.Message)
			}
			if !strings.Contains(res.Message, "deadline") {
				t.Fatalf("message %q does not explain the deadline", res.Message)
			}
			// Not a timing assertion: only that the run ended rather than hung.
			t.Logf("ended after %v: %s", time.Since(start).Round(time.Millisecond), res.Message)
		})
	}
}

func TestInvalidScenariosAreRejected(t *testing.T) {
	noop := func(context.Context, string) (any, error) { return nil, nil }
	inv := func(context.Context, *pgx.Conn, []interleave.ActorResult) error { return nil }
	for _, sc := range []interleave.Scenario{
		{Name: "one", Actors: []interleave.Actor{{Name: "a", Run: noop}}, Invariant: inv},
		{Name: "badname", Actors: []interleave.Actor{{Name: "1a", Run: noop}, {Name: "b", Run: noop}}, Invariant: inv},
		{Name: "dup", Actors: []interleave.Actor{{Name: "a", Run: noop}, {Name: "a", Run: noop}}, Invariant: inv},
		{Name: "noinv", Actors: []interleave.Actor{{Name: "a", Run: noop}, {Name: "b", Run: noop}}},
	} {
		if _, err := interleave.Explore(context.Background(), sc, opts()); err == nil {
			t.Errorf("scenario %s was accepted", sc.Name)
		}
	}
	_ = errors.New
}

// On a dedicated server whose role may not set deadlock_timeout (no
// superuser, no SET privilege), actors' connections still open: no victim
// options are added, PostgreSQL decides the victim by its own timeout, and
// the search offers no victim choices (none could be followed).
func TestDeadlockUnderARoleThatCannotSetDeadlockTimeout(t *testing.T) {
	ctx := fixture.Context(t)
	admin, err := pgx.Connect(ctx, server.ConnString("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	role := fmt.Sprintf("plain_%d", time.Now().UnixNano())
	if _, err := admin.Exec(ctx, "CREATE ROLE "+role+" LOGIN CREATEDB"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = admin.Exec(context.Background(), "DROP ROLE IF EXISTS "+role) })
	url := fmt.Sprintf("postgres://%s@127.0.0.1:%d/postgres?sslmode=disable", role, server.Port())
	res, err := interleave.Explore(ctx, deadlockScenario(), interleave.Options{Server: interleave.ServerOptions{DatabaseURL: url}, Search: interleave.SearchOptions{KeepGoing: true, Workers: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomeViolation || !strings.Contains(res.Message, "40P01") {
		t.Fatalf("outcome %s %q; want the deadlock found, connections working", res.Outcome, res.Message)
	}
	if res.Summary.VictimChoices != 0 || res.Summary.Diverged != 0 {
		t.Fatalf("victim choices %d, diverged %d; want none when the victim cannot be chosen", res.Summary.VictimChoices, res.Summary.Diverged)
	}
}

// TestAbandonedActorReturningLaterWritesNothing: an actor that ignores its
// context past the grace period is given up; when it returns afterwards it
// must not write the result the judge and the recorder read (go test -race
// saw the write before: issue 19 item 10).
func TestAbandonedActorReturningLaterWritesNothing(t *testing.T) {
	sc := fixture.Counter(false)
	back := make(chan struct{})
	sc.Actors[1].Run = func(ctx context.Context, cs string) (any, error) {
		defer close(back)
		<-ctx.Done()
		time.Sleep(4 * time.Second) // past the 3 s grace
		return "late", nil
	}
	o := opts()
	o.AttemptTimeout = time.Second
	res, err := interleave.RunOnce(fixture.Context(t), sc, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomeInconclusive || !strings.Contains(res.Message, "abandoned") {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Message)
	}
	<-back // the late write happens now, while the result is read below
	for _, a := range res.Artifact.Actors {
		if a.Actor == sc.Actors[1].Name && strings.Contains(string(a.Value), "late") {
			t.Fatalf("the abandoned actor's late value was recorded: %s", a.Value)
		}
	}
}

// TestDeadlockWithActorsConnectingAsTheirOwnRole: actors that connect as an
// application role (neither superuser nor granted SET on deadlock_timeout)
// through a superuser server: their connections must work (they failed
// with FATAL 42501 when the proxy added the victim option to every start-up
// packet), the deadlock is found, and the run says victims were left to
// PostgreSQL (issue 19 item 11).
func TestDeadlockWithActorsConnectingAsTheirOwnRole(t *testing.T) {
	ctx := fixture.Context(t)
	admin, err := pgx.Connect(ctx, server.ConnString("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	role := fmt.Sprintf("app_%d", time.Now().UnixNano())
	if _, err := admin.Exec(ctx, "CREATE ROLE "+role+" LOGIN"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = admin.Exec(context.Background(), "DROP OWNED BY "+role)
		_, _ = admin.Exec(context.Background(), "DROP ROLE IF EXISTS "+role)
	})
	sc := deadlockScenario()
	setup := sc.Setup
	sc.Setup = func(ctx context.Context, db *pgx.Conn) error {
		if err := setup(ctx, db); err != nil {
			return err
		}
		_, err := db.Exec(ctx, "GRANT SELECT, UPDATE ON acct TO "+role)
		return err
	}
	for i := range sc.Actors {
		run := sc.Actors[i].Run
		sc.Actors[i].Run = func(ctx context.Context, cs string) (any, error) {
			u, err := neturl.Parse(cs)
			if err != nil {
				return nil, err
			}
			u.User = neturl.User(role)
			return run(ctx, u.String())
		}
	}
	o := opts()
	o.Search.KeepGoing, o.Search.Workers = true, 1
	res, err := interleave.Explore(ctx, sc, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomeViolation || !strings.Contains(res.Message, "40P01") {
		t.Fatalf("outcome %s %q; want the deadlock found, connections working", res.Outcome, res.Message)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], role) || !strings.Contains(res.Notes[0], "deadlock_timeout") {
		t.Fatalf("notes %q; want one naming the role", res.Notes)
	}
}

// TestSessionLocksAreReleasedBeforeTheNextCommand: an actor that takes a
// session-level advisory lock and returns holds it until its backend
// exits, after its client has gone; the next command of another actor is
// released only once it has, so what that command sees does not depend on
// how fast the server ends a session (the generated differential's seed
// 20166 saw both answers for one order).
func TestSessionLocksAreReleasedBeforeTheNextCommand(t *testing.T) {
	sc := interleave.Scenario{
		Name: "session-lock",
		Actors: []interleave.Actor{
			{Name: "holder", Run: func(ctx context.Context, cs string) (any, error) {
				c, err := connect(ctx, cs)
				if err != nil {
					return nil, err
				}
				defer c.Close(ctx)
				_, err = c.Exec(ctx, "SELECT pg_advisory_lock(7)")
				return nil, err
			}},
			{Name: "taker", Run: func(ctx context.Context, cs string) (any, error) {
				c, err := connect(ctx, cs)
				if err != nil {
					return nil, err
				}
				defer c.Close(ctx)
				var got bool
				for _, q := range []string{"SELECT true", "SELECT true", "SELECT pg_try_advisory_lock(7)"} {
					if err := c.QueryRow(ctx, q).Scan(&got); err != nil {
						return nil, err
					}
				}
				return got, nil
			}},
		},
		Invariant: func(_ context.Context, _ *pgx.Conn, rs []interleave.ActorResult) error {
			if rs[1].Value != true {
				return fmt.Errorf("the lock of a session that had ended was still held")
			}
			return nil
		},
	}
	for i := 0; i < 20; i++ {
		res, err := interleave.RunOnce(fixture.Context(t), sc, opts())
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != interleave.OutcomePass {
			t.Fatalf("run %d: %s: %s", i, res.Outcome, res.Message)
		}
	}
}

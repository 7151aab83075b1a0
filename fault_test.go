//go:build !windows

package interleave_test

import (
	"context"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/internal/testkit/fixture"
	"github.com/pginterleave/interleave/pgserver"
)

// ownServer starts a server for one test to kill (not the shared one),
// closed with the test, and a context for the test's search.
func ownServer(t *testing.T) (context.Context, *pgserver.Local) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	srv, err := pgserver.StartLocal(ctx, pgserver.LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return ctx, srv
}

// A postmaster killed during an attempt is reported as the server's fault,
// with its log, not as the error of the actor that saw its connection go.
func TestKilledServerIsNamedAsSuch(t *testing.T) {
	ctx, srv := ownServer(t)
	sc := fixture.Counter(false)
	sc.Actors[0].Run = func(ctx context.Context, cs string) (any, error) {
		c, err := pgx.Connect(ctx, cs)
		if err != nil {
			return nil, err
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "SELECT 1"); err != nil {
			return nil, err
		}
		_ = syscall.Kill(srv.Pid(), syscall.SIGKILL)
		// A backend outlives its postmaster until its next wait: go on
		// until this one is gone too, as an application would see it.
		for i := 0; i < 1000; i++ {
			if _, err = c.Exec(ctx, "SELECT 1"); err != nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		return nil, err
	}
	res, err := interleave.Explore(ctx, sc, interleave.Options{Server: interleave.ServerOptions{Use: srv}, Search: interleave.SearchOptions{Workers: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomeHarnessError || !strings.Contains(res.Message, "PostgreSQL terminated") || strings.Contains(res.Message, "actor alice failed") {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Message)
	}
	if res.ExitCode() != interleave.ExitError {
		t.Fatalf("exit %d, want 2", res.ExitCode())
	}
}

// With --keep-going, a server that dies after violations were found still
// ends the search as a harness error: exit 2, the server named, the first
// violation kept and reported beside it.
func TestKilledServerAfterViolationsExits2(t *testing.T) {
	ctx, srv := ownServer(t)
	sc := fixture.Counter(false)
	inc := sc.Actors[0].Run
	var runs atomic.Int32
	sc.Actors[0].Run = func(ctx context.Context, cs string) (any, error) {
		if runs.Add(1) == 3 {
			_ = syscall.Kill(srv.Pid(), syscall.SIGKILL)
		}
		return inc(ctx, cs)
	}
	res, err := interleave.Explore(ctx, sc, interleave.Options{Server: interleave.ServerOptions{Use: srv}, Search: interleave.SearchOptions{Workers: 1, KeepGoing: true}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomeViolation || res.Summary.Failures == 0 {
		t.Fatalf("outcome %s (%d violations): %s", res.Outcome, res.Summary.Failures, res.Message)
	}
	if res.Summary.StopErr == nil || !strings.Contains(res.Summary.StopErr.Error(), "PostgreSQL terminated") {
		t.Fatalf("the search's stop: %s: %v", res.Summary.StopReason, res.Summary.StopErr)
	}
	if res.ExitCode() != interleave.ExitError {
		t.Fatalf("exit %d, want 2", res.ExitCode())
	}
}

// A postmaster killed in the last attempt, whose backends still ran that
// attempt to its end, leaves no passing verdict behind: the search ends
// exit 2 with the server named, not "every order passed".
func TestServerKilledInTheLastAttemptIsNoPass(t *testing.T) {
	ctx, srv := ownServer(t)
	// Count the orders first, then kill in the invariant of the last.
	opts := interleave.Options{Server: interleave.ServerOptions{Use: srv}, Search: interleave.SearchOptions{Workers: 1}}
	var calls atomic.Int32
	sc := fixture.Counter(true)
	check := sc.Invariant
	sc.Invariant = func(ctx context.Context, db *pgx.Conn, rs []interleave.ActorResult) error {
		calls.Add(1)
		return check(ctx, db, rs)
	}
	res, err := interleave.Explore(ctx, sc, opts)
	if err != nil || res.ExitCode() != interleave.ExitPass {
		t.Fatalf("the fixed counter: %v %v", res, err)
	}
	last := calls.Load()
	calls.Store(0)
	var killed atomic.Bool
	sc.Invariant = func(ctx context.Context, db *pgx.Conn, rs []interleave.ActorResult) error {
		if err := check(ctx, db, rs); err != nil || calls.Add(1) < last {
			return err
		}
		killed.Store(true)
		pid := srv.Pid()
		return syscall.Kill(pid, syscall.SIGKILL) // the attempt passes
	}
	res, err = interleave.Explore(ctx, sc, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !killed.Load() {
		t.Fatal("the invariant never ran")
	}
	if res.ExitCode() != interleave.ExitError || !strings.Contains(res.Message, "PostgreSQL terminated") {
		t.Fatalf("exit %d, outcome %s: %s", res.ExitCode(), res.Outcome, res.Message)
	}
}

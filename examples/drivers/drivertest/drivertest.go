// Package drivertest holds the checks every driver example runs: the race
// is found, and the repair passes its search.
package drivertest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/cmd/cli"
	"github.com/pginterleave/interleave/interleavetest"
	"github.com/pginterleave/interleave/sched"
)

func options(opts interleave.Options) interleave.Options {
	if opts.Server.Use == nil {
		opts.Server.Use = interleavetest.Server()
	}
	return opts
}

func summary(r *interleave.Result) string {
	var b strings.Builder
	cli.PrintExplore(&b, r)
	return strings.TrimSpace(b.String())
}

// Race explores sc and requires a violation; it returns the result so that
// a test can check the failing schedule.
func Race(t *testing.T, sc interleave.Scenario, opts interleave.Options) *interleave.Result {
	t.Helper()
	res, err := interleave.Explore(context.Background(), sc, options(opts))
	if err != nil {
		t.Fatalf("explore %s: %v", sc.Name, err)
	}
	if res.Outcome != interleave.OutcomeViolation {
		t.Fatalf("the race in %s was not found:\n%s", sc.Name, summary(res))
	}
	t.Logf("race found:\n%s", summary(res))
	return res
}

// Repaired explores sc and requires a pass. Without an attempt budget the
// search must exhaust every order; with one, the budget must be what
// stopped it (a stated-budget search) and no attempt may have failed.
func Repaired(t *testing.T, sc interleave.Scenario, opts interleave.Options) *interleave.Result {
	t.Helper()
	res, err := interleave.Explore(context.Background(), sc, options(opts))
	if err != nil {
		t.Fatalf("explore %s: %v", sc.Name, err)
	}
	s := res.Summary
	switch {
	case res.Outcome == interleave.OutcomePass && s.Exhausted():
	case opts.Search.MaxAttempts > 0 && s.Failures == 0 && s.Inconclusive == 0 && s.Attempted == opts.Search.MaxAttempts:
	default:
		t.Fatalf("the repair of %s did not pass its search:\n%s", sc.Name, summary(res))
	}
	t.Logf("repair passes:\n%s", summary(res))
	return res
}

// RanAtMostOnce is the invariant of the fault tests: the one statement of
// the scenario's writer left at most one row in table (a second is a retry
// that ran it again), reported as "one <what> ran N times".
func RanAtMostOnce(table, what string) func(context.Context, *pgx.Conn, []interleave.ActorResult) error {
	return func(ctx context.Context, db *pgx.Conn, _ []interleave.ActorResult) error {
		var n int
		if err := db.QueryRow(ctx, "SELECT count(*) FROM "+pgx.Identifier{table}.Sanitize()).Scan(&n); err != nil {
			return err
		}
		if n > 1 {
			return fmt.Errorf("one %s ran %d times", what, n)
		}
		return nil
	}
}

// CountRows is an actor that reads how many rows table has, on a
// connection of its own.
func CountRows(table string) func(context.Context, string) (any, error) {
	return func(ctx context.Context, cs string) (any, error) {
		conn, err := pgx.Connect(ctx, cs)
		if err != nil {
			return nil, err
		}
		defer conn.Close(ctx)
		var n int
		err = conn.QueryRow(ctx, "SELECT count(*) FROM "+pgx.Identifier{table}.Sanitize()).Scan(&n)
		return n, err
	}
}

// SurvivesEveryFault explores sc with every fault kind at every command
// (opts' server, one worker, unless opts says otherwise) and requires an
// exhausted pass in which some attempts injected a fault and none
// diverged or was inconclusive.
func SurvivesEveryFault(t *testing.T, sc interleave.Scenario, opts interleave.Options) *interleave.Result {
	t.Helper()
	opts = options(opts)
	opts.Search.Faults = sched.FaultKinds()
	if opts.Search.Workers == 0 {
		opts.Search.Workers = 1
	}
	res, err := interleave.Explore(context.Background(), sc, opts)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	t.Logf("%d attempts (%d with a fault); stop: %s", s.Attempted, s.FaultAttempts, s.StopReason)
	if res.Outcome != interleave.OutcomePass || !s.Exhausted() || s.Diverged > 0 || s.Inconclusive > 0 {
		t.Fatalf("outcome %s (%s), stop %q, %d diverged, %d inconclusive; want an exhausted pass", res.Outcome, res.Message, s.StopReason, s.Diverged, s.Inconclusive)
	}
	if s.FaultAttempts == 0 {
		t.Fatal("no attempt injected a fault")
	}
	return res
}

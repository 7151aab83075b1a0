package interleave_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/internal/testkit/fixture"
)

// halfImport: an importer inserts two rows, each in its own statement; a
// reader counts them. The invariant (when strict) wants the reader never
// to see an empty table, which only the order that runs the reader first
// breaks (the default order runs the importer's first insert first).
func halfImport(strict bool) interleave.Scenario {
	return interleave.Scenario{
		Name: "half-import",
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, "CREATE TABLE t (n int)")
			return err
		},
		Actors: []interleave.Actor{
			{Name: "importer", Run: func(ctx context.Context, cs string) (any, error) {
				c, err := pgx.Connect(ctx, cs)
				if err != nil {
					return nil, err
				}
				defer c.Close(ctx)
				for _, n := range []int{1, 2} {
					if _, err := c.Exec(ctx, fmt.Sprintf("INSERT INTO t VALUES (%d)", n)); err != nil {
						return nil, err
					}
				}
				return nil, nil
			}},
			{Name: "reader", Run: func(ctx context.Context, cs string) (any, error) {
				c, err := pgx.Connect(ctx, cs)
				if err != nil {
					return nil, err
				}
				defer c.Close(ctx)
				var n int
				err = c.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n)
				return n, err
			}},
		},
		Invariant: func(ctx context.Context, db *pgx.Conn, rs []interleave.ActorResult) error {
			if strict && rs[1].Value == 0 {
				return fmt.Errorf("the reader saw no rows")
			}
			return nil
		},
	}
}

// TestReductionCheckCatchesABrokenDependenceRule: with the test-only switch
// that makes every pair of commands independent, the reduced search runs
// one order and would pass; the check samples the skipped orders and
// reports the violation (exit 1), or, when no order violates, the new
// behaviour (exit 4, both orders named). With the check off the broken
// rule passes: what the check is for.
func TestReductionCheckCatchesABrokenDependenceRule(t *testing.T) {
	t.Setenv("INTERLEAVE_TEST_BROKEN_DEPENDENCE", "1")
	ctx := fixture.Context(t)
	o := opts()
	o.Search.Workers = 1

	res, err := interleave.Explore(ctx, halfImport(true), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomeViolation || res.ExitCode() != 1 || !res.Summary.CheckFailed || res.Summary.Check.Sampled == 0 {
		t.Fatalf("strict: outcome %s (exit %d), check %+v, failed by the check %v: %s", res.Outcome, res.ExitCode(), res.Summary.Check, res.Summary.CheckFailed, res.Message)
	}

	res, err = interleave.Explore(ctx, halfImport(false), o)
	if err != nil {
		t.Fatal(err)
	}
	c := res.Summary.Check
	if res.Outcome != interleave.OutcomeInconclusive || res.ExitCode() != 4 || c.NewBehaviours == 0 || !strings.Contains(res.Message, "equivalent to the explored order") {
		t.Fatalf("lenient: outcome %s (exit %d), check %+v: %s", res.Outcome, res.ExitCode(), c, res.Message)
	}
	t.Log(res.Message)

	o.Search.ReductionCheck = -1
	res, err = interleave.Explore(ctx, halfImport(true), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomePass || res.Summary.Check.Sampled != 0 || res.Summary.Attempted != 1 {
		t.Fatalf("check off: outcome %s after %d attempts, check %+v; the broken rule should pass unchecked", res.Outcome, res.Summary.Attempted, res.Summary.Check)
	}
}

// TestReductionCheckPassesASoundSearch: with the real rules, the same
// scenario passes its check: every sample behaves as an explored order.
func TestReductionCheckPassesASoundSearch(t *testing.T) {
	ctx := fixture.Context(t)
	res, err := interleave.Explore(ctx, halfImport(false), opts())
	if err != nil {
		t.Fatal(err)
	}
	c := res.Summary.Check
	if res.Outcome != interleave.OutcomePass || c.NewBehaviours != 0 || c.Unrepeatable != 0 {
		t.Fatalf("outcome %s, check %+v: %s", res.Outcome, c, res.Message)
	}
	t.Logf("%d attempts, %d skipped orders, %d sampled", res.Summary.Attempted, c.Skipped, c.Sampled)
}

// TestBudgetStopSaysPlansDiverged: a search stopped by its attempt budget
// after plans that could not be followed says so in its message, not only
// in --json (issue 21 item 4).
func TestBudgetStopSaysPlansDiverged(t *testing.T) {
	var calls atomic.Int64
	sc := halfImport(false)
	sc.Actors[1].Run = func(ctx context.Context, cs string) (any, error) {
		c, err := pgx.Connect(ctx, cs)
		if err != nil {
			return nil, err
		}
		defer c.Close(ctx)
		// Sends one command fewer each run: plans made from the first run
		// name commands later runs never send.
		n := max(1, 6-int(calls.Add(1)))
		for i := 0; i < n; i++ {
			if _, err := c.Exec(ctx, "SELECT count(*) FROM t"); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}
	o := opts()
	o.Search.Workers, o.Search.MaxAttempts, o.Search.Reduction = 1, 6, "none"
	res, err := interleave.Explore(fixture.Context(t), sc, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary.Diverged == 0 {
		t.Fatalf("no plan diverged (%d attempts): the scenario should make them", res.Summary.Attempted)
	}
	if res.Outcome != interleave.OutcomeInconclusive || !strings.Contains(res.Message, "could not be followed") {
		t.Fatalf("outcome %s: %q; want the diverged plans named", res.Outcome, res.Message)
	}
}

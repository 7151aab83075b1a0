package interleave_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/explain"
	"github.com/pginterleave/interleave/internal/testkit/fixture"
)

// withdrawals is a lost update inside transactions: two withdrawals of 10
// each read the balance and write it back in one READ COMMITTED
// transaction.
// withdrawals is the lost update inside transactions (fixture.Withdrawals).
func withdrawals() interleave.Scenario { return fixture.Withdrawals() }

// TestExplainAPI finds the lost update, reads the saved artifact back as a
// user of the API would, and explains it: the search's artifact already
// names the anomaly and its critical pair (Options.Output.Reversals);
// Explain finds the same pair and adds the fix class, each shown by
// running the order.
func TestExplainAPI(t *testing.T) {
	ctx := fixture.Context(t)
	o := opts()
	o.Search.Workers = 1
	o.Output.Out = filepath.Join(t.TempDir(), "failure.json")
	res, err := interleave.Explore(ctx, withdrawals(), o)
	if err != nil || res.Outcome != interleave.OutcomeViolation {
		t.Fatalf("search: %v %+v", err, res)
	}
	rec, err := artifact.Read(res.Saved)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Explanation == nil || rec.Explanation.Anomaly.Name != explain.LostUpdate || len(rec.Explanation.Cycle) != 2 {
		t.Fatalf("the saved artifact names %+v; want a lost update and its cycle of two", rec.Explanation)
	}
	x, err := interleave.Explain(ctx, withdrawals(), rec, interleave.ExplainOptions{Options: opts()})
	if err != nil {
		t.Fatal(err)
	}
	if x.Anomaly != rec.Explanation.Anomaly || x.CriticalPair == nil || !x.CriticalPair.Found || x.Fix == nil || x.Fix.Class != explain.FixRepeatableRead {
		t.Fatalf("Explain says:\n%s", x.Text())
	}
	if p := rec.Explanation.CriticalPair; p == nil || !p.Found || p.First != x.CriticalPair.First || p.Second != x.CriticalPair.Second {
		t.Fatalf("the search kept the critical pair %+v; Explain found %+v", rec.Explanation.CriticalPair, x.CriticalPair)
	}
	// A passing run is nothing to explain.
	pass := withdrawals()
	pass.Invariant = func(context.Context, *pgx.Conn, []interleave.ActorResult) error { return nil }
	if _, err := interleave.Explain(ctx, pass, &artifact.Artifact{Scenario: rec.Scenario, Outcome: artifact.Outcome{Kind: "pass"}}, interleave.ExplainOptions{Options: opts()}); err == nil {
		t.Error("Explain of a pass returned no error")
	}
}

// Explain the failure a search saved: the anomaly by name, the critical
// pair and the isolation level that stops it.
func ExampleExplain() {
	ctx := context.Background()
	sc := withdrawals()
	rec, err := artifact.Read("failure.json") // written by a run with --out, or Options.Output.Out
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	x, err := interleave.Explain(ctx, sc, rec, interleave.ExplainOptions{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	fmt.Print(x.Text())
}

package interleave_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/cmd/cli"
	"github.com/pginterleave/interleave/internal/testkit/fixture"
)

// insertIfMissing is the race inside one statement: INSERT ... SELECT ...
// WHERE NOT EXISTS on a table without a unique constraint. Released one at
// a time the second insert sees the first row; run at once, both snapshots
// see none and both insert. Each statement also works for 50 ms after its
// snapshot (pg_sleep in its FROM), standing for a slower query, so that two
// released together overlap even when the machine is busy and one backend
// gets the CPU late.
func insertIfMissing() interleave.Scenario {
	insert := func(ctx context.Context, cs string) (any, error) {
		c, err := pgx.Connect(ctx, cs)
		if err != nil {
			return nil, err
		}
		defer c.Close(ctx)
		_, err = c.Exec(ctx, "INSERT INTO locks (name) SELECT 'migration' FROM (SELECT pg_sleep(0.05)) AS work WHERE NOT EXISTS (SELECT 1 FROM locks WHERE name = 'migration')")
		return nil, err
	}
	return interleave.Scenario{
		Name: "insert-if-missing",
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, "CREATE TABLE locks (name text NOT NULL)")
			return err
		},
		Actors: []interleave.Actor{{Name: "runner1", Run: insert}, {Name: "runner2", Run: insert}},
		Invariant: func(ctx context.Context, db *pgx.Conn, _ []interleave.ActorResult) error {
			var n int
			if err := db.QueryRow(ctx, "SELECT count(*) FROM locks WHERE name = 'migration'").Scan(&n); err != nil {
				return err
			}
			if n != 1 {
				return fmt.Errorf("%d lock rows, want 1", n)
			}
			return nil
		},
	}
}

func TestOverlapPairsFindTheOneStatementRace(t *testing.T) {
	ctx := fixture.Context(t)
	o := opts()
	o.Search.Workers = 1
	// One at a time, every order passes: the race is not reachable.
	res, err := interleave.Explore(ctx, insertIfMissing(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomePass || !res.Summary.Exhausted() {
		t.Fatalf("without overlap: %s after %d attempts", res.Outcome, res.Summary.Attempted)
	}
	// With pairs the search releases both INSERTs together.
	o.Search.Overlap = "pairs"
	o.Search.KeepGoing = true
	res, err = interleave.Explore(ctx, insertIfMissing(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomeViolation {
		t.Fatalf("with overlap pairs: %s after %d attempts: %s", res.Outcome, res.Summary.Attempted, res.Message)
	}
	pair := false
	for _, d := range res.Artifact.Schedule.Decisions {
		if len(d.Release) == 2 {
			pair = true
		}
	}
	for _, u := range res.Artifact.Units {
		if !u.Prepare && !u.Pair {
			t.Errorf("unit %s#%d.%d is not marked as released in a pair", u.Actor, u.Conn, u.Unit)
		}
	}
	if !pair || res.Artifact.Limits.Overlap != "pairs" {
		t.Fatal("the failing schedule has no pair release, or the artifact does not record the overlap")
	}
	// A replay of a pair may or may not reproduce; --repeat reports the rate.
	r, err := interleave.Replay(ctx, insertIfMissing(), res.Artifact, interleave.ReplayOptions{Options: o, Repeat: 20})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	cli.PrintReplay(&out, r)
	t.Log(out.String())
	if !strings.Contains(out.String(), "may reproduce the failure only some of the time") || r.PairStep < 0 {
		t.Fatalf("the replay does not say that a pair may not reproduce:\n%s", out.String())
	}
	if r.Outcome == interleave.OutcomeViolation && (!r.SameFailure || r.Attempts < 1) {
		t.Fatalf("replay: %s in %d attempts", r.Outcome, r.Attempts)
	}
	// Minimize keeps the pair: without it the race cannot happen.
	m, err := interleave.Minimize(ctx, insertIfMissing(), res.Artifact, interleave.MinimizeOptions{Options: o})
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	cli.PrintMinimize(&out, m)
	t.Log(out.String())
	if m.Outcome != interleave.OutcomeViolation || m.Before != 1 || m.After != 1 || !strings.Contains(out.String(), "pair") {
		t.Fatalf("minimize of a pair failure: %s, %d -> %d choices:\n%s", m.Outcome, m.Before, m.After, out.String())
	}
}

package engine

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/pgserver"
	"github.com/pginterleave/interleave/sched"
	"github.com/pginterleave/interleave/search"
)

// lateReader: bob runs a harmless statement before his read, so the FIFO
// order (a-read, b-noop, a-write, b-read, b-write) passes and the lost
// update needs exactly one choice: bob's read before alice's write.
func lateReader() Scenario {
	inc := func(pre bool) func(ctx context.Context, cs string) (any, error) {
		return func(ctx context.Context, cs string) (any, error) {
			c, err := pgx.Connect(ctx, cs)
			if err != nil {
				return nil, err
			}
			defer c.Close(ctx)
			if pre {
				if _, err := c.Exec(ctx, "SELECT 1", pgx.QueryExecModeSimpleProtocol); err != nil {
					return nil, err
				}
			}
			var n int
			if err := c.QueryRow(ctx, "SELECT n FROM counter WHERE id = 1", pgx.QueryExecModeSimpleProtocol).Scan(&n); err != nil {
				return nil, err
			}
			_, err = c.Exec(ctx, fmt.Sprintf("UPDATE counter SET n = %d WHERE id = 1", n+1), pgx.QueryExecModeSimpleProtocol)
			return n, err
		}
	}
	return Scenario{
		Name: "late-reader",
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, "CREATE TABLE counter (id int PRIMARY KEY, n int NOT NULL); INSERT INTO counter VALUES (1, 0)")
			return err
		},
		Actors: []Actor{{Name: "alice", Run: inc(false)}, {Name: "bob", Run: inc(true)}},
		Invariant: func(ctx context.Context, db *pgx.Conn, _ []ActorResult) error {
			var n int
			if err := db.QueryRow(ctx, "SELECT n FROM counter WHERE id = 1").Scan(&n); err != nil {
				return err
			}
			if n != 2 {
				return fmt.Errorf("lost update: got %d, want 2", n)
			}
			return nil
		},
	}
}

// TestMinimizeReducesNeedlessChoices explores every order, takes the
// failing schedule with the most choices, and minimizes it: the result must
// have the known minimum of one choice and be locally minimal.
func TestMinimizeReducesNeedlessChoices(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	srv, err := pgserver.StartLocal(ctx, pgserver.LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	opts := Options{Server: ServerOptions{Use: srv}}
	sc := lateReader()

	o, err := opts.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	e, err := openEnv(ctx, o, 1)
	if err != nil {
		t.Fatal(err)
	}
	w, err := e.newWorker(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var worst *artifact.Artifact
	var fifoFailed bool
	sum, _ := search.Explore(ctx, search.Options{KeepGoing: true}, search.Hooks{}, func(ctx context.Context, _, seq int, plan search.Plan, p sched.Policy) search.Report {
		r := w.run(ctx, &sc, p, nil)
		if r.Outcome.Failed() {
			if seq == 0 {
				fifoFailed = true
			}
			a := e.recordAttempt(&sc, "explore", r)
			if worst == nil || len(a.Schedule.Choices) > len(worst.Schedule.Choices) {
				worst = a
			}
		}
		return search.Report{Decisions: r.Sched.Decisions, Failed: r.Outcome.Failed()}
	})
	w.close(ctx)
	e.close()
	if fifoFailed {
		t.Fatal("the default order fails; the scenario must need a choice")
	}
	if worst == nil || len(worst.Schedule.Choices) < 3 {
		t.Fatalf("the search (%d attempts, %d failures) found no failing schedule with 3 or more choices", sum.Attempted, sum.Failures)
	}
	res, err := Minimize(ctx, sc, worst, MinimizeOptions{Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("minimized %d choices to %d in %d attempts (%d orders, %d failing)", res.Before, res.After, res.Attempts, sum.Attempted, sum.Failures)
	if res.Outcome != OutcomeViolation || res.After != 1 || !res.LocallyMinimal || res.Before != len(worst.Schedule.Choices) {
		t.Fatalf("minimize: %s, %d -> %d choices, locally minimal %v", res.Outcome, res.Before, res.After, res.LocallyMinimal)
	}
	// The reduced artifact replays exactly.
	r, err := Replay(ctx, sc, res.Artifact, ReplayOptions{Options: opts})
	if err != nil || r.Outcome != OutcomeViolation || !r.SameFailure {
		t.Fatalf("replay of the minimized artifact: %v %s %v", err, r.Outcome, r.Differences)
	}
}

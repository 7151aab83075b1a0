package explain_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave/engine"
)

// TestUnnamedAnomalyChangesNoVerdict: when the anomaly of a saved failure
// cannot be named (here the scenario's setup fails when naming it runs it
// again), the search's outcome and exit code are the failure's, the
// artifact has no explanation, and AnomalyError says why.
func TestUnnamedAnomalyChangesNoVerdict(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	sc := lostUpdate()
	var failed atomic.Bool
	setup, invariant := sc.Setup, sc.Invariant
	sc.Setup = func(ctx context.Context, db *pgx.Conn) error {
		if failed.Load() {
			return errors.New("the setup refuses to run after the failure")
		}
		return setup(ctx, db)
	}
	sc.Invariant = func(ctx context.Context, db *pgx.Conn, r []engine.ActorResult) error {
		err := invariant(ctx, db, r)
		failed.Store(err != nil)
		return err
	}
	o := engine.Options{Server: engine.ServerOptions{Use: server}}
	o.Search.Workers = 1
	res, err := engine.Explore(ctx, sc, o)
	if err != nil || res.Outcome != engine.OutcomeViolation || res.ExitCode() != engine.ExitViolation {
		t.Fatalf("search: %v %+v", err, res)
	}
	if res.Artifact.Explanation != nil || !strings.Contains(res.AnomalyError, "could not be named") || !strings.Contains(res.AnomalyError, "the setup refuses") {
		t.Fatalf("explanation %+v, AnomalyError %q; want none, and why", res.Artifact.Explanation, res.AnomalyError)
	}
}

package casestudies

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/internal/testkit/testenv"
	"github.com/pginterleave/interleave/pgserver"
)

var (
	measure   = flag.Bool("casestudies.measure", false, "run every measurement of docs/case-studies.md (11 minutes on an idle 2-core machine, 45 under load; use -timeout 3h)")
	onlyCase  = flag.String("casestudies.case", "", "with -casestudies.measure: only this library (knex, node-pg-migrate, sequelize)")
	resultDir = flag.String("casestudies.out", "results", "with -casestudies.measure: where the reports are written")
	sweep     = flag.Int("casestudies.sweep", DefaultConfig.Sweep, "with -casestudies.measure: schedules per exploration (and the budget of the first search)")
	replays   = flag.Int("casestudies.replays", DefaultConfig.Replays, "with -casestudies.measure: exact replays of each first failure")
	trials    = flag.Int("casestudies.trials", DefaultConfig.Trials, "with -casestudies.measure: baseline trials without Interleave")
)

// server is one managed PostgreSQL shared by every test of the package.
var server *pgserver.Local

func TestMain(m *testing.M) {
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	srv, err := pgserver.StartLocal(ctx, pgserver.LocalOptions{})
	cancel()
	if err != nil {
		// Never skip: a run without PostgreSQL proves nothing.
		fmt.Fprintf(os.Stderr, "the case studies need PostgreSQL's server binaries: %v\n", err)
		os.Exit(2)
	}
	server = srv
	code := m.Run()
	srv.Close()
	os.Exit(code)
}

func measurer(t *testing.T) *Measurer {
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return &Measurer{Root: root, Server: server, Config: DefaultConfig, Log: t.Logf}
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// TestNodePgMigrateTableRace is the case study CI runs: node-pg-migrate
// 5.10.0's runner checks for pgmigrations and creates it before it takes
// the advisory lock, so the second of two concurrent runners fails with
// "relation already exists"; 6.0.0 takes the lock first and passes every
// order the search explores.
func TestNodePgMigrateTableRace(t *testing.T) {
	for _, tool := range []string{"node", "npm"} {
		testenv.Command(t, tool, "install Node.js and npm (apt-get install -y nodejs npm; scripts/ensure-deps node); npm ci also needs the npm registry")
	}
	ctx := ctxFor(t, 15*time.Minute)
	m := measurer(t)
	m.Workers = 2
	c := NodePgMigrate
	if err := m.Prepare(ctx, c); err != nil {
		t.Fatal(err)
	}

	before, err := m.Explore(ctx, c, c.Before, "", 50, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("node-pg-migrate %s: %s after %d attempts: %s\n%s", c.Before.Label, before.Outcome, before.Attempted, before.Message, strings.Join(before.Order, "\n"))
	if before.Outcome != interleave.OutcomeViolation {
		t.Fatalf("node-pg-migrate %s: %s after %d attempts (%s); want the violation", c.Before.Label, before.Outcome, before.Attempted, before.Message)
	}
	if !strings.Contains(before.Message, `relation "pgmigrations" already exists`) && !strings.Contains(before.Message, "duplicate key value") {
		t.Fatalf("node-pg-migrate %s: unexpected failure %q; want the second CREATE TABLE pgmigrations to fail", c.Before.Label, before.Message)
	}

	// The fix passes: every order (within the budget, which the search
	// has so far exhausted well before).
	after, err := m.Explore(ctx, c, c.After, "", afterBudget, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("node-pg-migrate %s: %s after %d attempts (exhausted %v, %v per attempt): %s", c.After.Label, after.Outcome, after.Attempted, after.Exhausted, after.PerAttempt().Round(time.Millisecond), after.Message)
	if after.Outcome != interleave.OutcomePass {
		t.Fatalf("node-pg-migrate %s: %s after %d attempts: %s\n%s", c.After.Label, after.Outcome, after.Attempted, after.Message, strings.Join(after.Order, "\n"))
	}
}

// afterBudget bounds the CI search of node-pg-migrate 6.0.0.
const afterBudget = 400

// TestMeasure runs every measurement of docs/case-studies.md and writes
// results/<library>.md and .json.
func TestMeasure(t *testing.T) {
	if !*measure {
		t.Skip("the measurements run with -casestudies.measure")
	}
	m := measurer(t)
	m.Config.Sweep, m.Config.FirstBudget, m.Config.Replays, m.Config.Trials = *sweep, *sweep, *replays, *trials
	if err := os.MkdirAll(*resultDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range Cases {
		if *onlyCase != "" && *onlyCase != c.Library {
			continue
		}
		t.Run(c.Library, func(t *testing.T) {
			m.Log = t.Logf
			rep, err := m.MeasureCase(ctxFor(t, 2*time.Hour), c)
			if err != nil {
				t.Fatal(err)
			}
			var md strings.Builder
			rep.Markdown(&md)
			t.Log("\n" + md.String())
			base := filepath.Join(*resultDir, c.Library)
			if err := os.WriteFile(base+".md", []byte(md.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			js, err := json.MarshalIndent(rep, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(base+".json", js, 0o644); err != nil {
				t.Fatal(err)
			}
		})
	}
}

package polyglot

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/internal/testkit/pgtest"
	"github.com/pginterleave/interleave/internal/testkit/testenv"
	"github.com/pginterleave/interleave/pgserver"
	"github.com/pginterleave/interleave/scenario"
)

// server is one managed PostgreSQL shared by the tests of this package.
var server *pgserver.Local

func TestMain(m *testing.M) { pgtest.Main(m, &server, pgserver.LocalOptions{}) }

func TestNodeSeatBooking(t *testing.T) {
	ctx := testCtx(t)
	testenv.Command(t, "node", "install Node.js and npm (apt-get install -y nodejs npm)")
	testenv.Command(t, "npm", "install Node.js and npm (apt-get install -y nodejs npm)")
	npmCI(t, ctx, "node")
	check(t, ctx, "node", "Seat 12A must be booked exactly once")
}

func TestPythonDoubleClaimedJob(t *testing.T) {
	ctx := testCtx(t)
	// The actors run Debian's Python (/usr/bin/python3), where
	// python3-psycopg2 installs psycopg2.
	out, err := exec.Command("/usr/bin/python3", "-c", "import psycopg2").CombinedOutput()
	if err != nil {
		err = fmt.Errorf("%v: %s", err, bytes.TrimSpace(out))
	}
	testenv.Require(t, "psycopg2 for /usr/bin/python3", err, "install it (apt-get install -y python3-psycopg2)")
	check(t, ctx, "python", "Job 1 must be run by exactly one worker")
}

func TestPsqlOversell(t *testing.T) {
	ctx := testCtx(t)
	testenv.Command(t, "psql", "install PostgreSQL's client (apt-get install -y postgresql-client)")
	check(t, ctx, "psql", "One item in stock must make exactly one order")
}

// check loads dir/race.yaml and dir/fixed.yaml: the race must be found
// (and replay exactly), the repair must pass every order.
func check(t *testing.T, ctx context.Context, dir, message string) {
	race := load(t, filepath.Join(dir, "race.yaml"))
	res, err := interleave.Explore(ctx, race.Scenario, options(race))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %s after %d attempts: %s", race.Path, res.Outcome, res.Summary.Attempted, res.Message)
	if res.Outcome != interleave.OutcomeViolation || !strings.Contains(res.Message, message) {
		t.Fatalf("%s: %s after %d attempts (%s); want a violation %q", race.Path, res.Outcome, res.Summary.Attempted, res.Message, message)
	}
	rep, err := interleave.Replay(ctx, race.Scenario, res.Artifact, interleave.ReplayOptions{Options: options(race)})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.SameFailure {
		t.Fatalf("%s: the exact replay gave %s (%s %s), not the recorded failure", race.Path, rep.Outcome, rep.Message, strings.Join(rep.Differences, "; "))
	}

	fixed := load(t, filepath.Join(dir, "fixed.yaml"))
	res, err = interleave.Explore(ctx, fixed.Scenario, options(fixed))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %s after %d attempts, every order explored: %v", fixed.Path, res.Outcome, res.Summary.Attempted, res.Summary.Exhausted())
	if res.Outcome != interleave.OutcomePass || !res.Summary.Exhausted() {
		t.Fatalf("%s: %s after %d attempts (exhausted %v): %s", fixed.Path, res.Outcome, res.Summary.Attempted, res.Summary.Exhausted(), res.Message)
	}
}

func load(t *testing.T, path string) *scenario.Loaded {
	t.Helper()
	l, err := scenario.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// options are the file's options on the shared server, quiet.
func options(l *scenario.Loaded) interleave.Options {
	o := l.Options
	o.Server.Use = server
	return o
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// npmCI installs dir's pinned packages (package-lock.json) when
// node_modules is missing or was not installed by npm.
func npmCI(t *testing.T, ctx context.Context, dir string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json")); err == nil {
		return
	}
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in %s failed (the npm registry must be reachable): %v\n%s", dir, err, out)
	}
}

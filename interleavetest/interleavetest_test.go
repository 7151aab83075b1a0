package interleavetest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
)

func TestMain(m *testing.M) { Main(m) }

func counter(fixed bool) interleave.Scenario {
	inc := func(ctx context.Context, cs string) (any, error) {
		c, err := pgx.Connect(ctx, cs)
		if err != nil {
			return nil, err
		}
		defer c.Close(ctx)
		var n int
		if err := c.QueryRow(ctx, "SELECT n FROM counter WHERE id = 1").Scan(&n); err != nil {
			return nil, err
		}
		if fixed {
			_, err = c.Exec(ctx, "UPDATE counter SET n = n + 1 WHERE id = 1")
		} else {
			_, err = c.Exec(ctx, "UPDATE counter SET n = $1 WHERE id = 1", n+1)
		}
		return n, err
	}
	return interleave.Scenario{
		Name: "counter",
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, "CREATE TABLE counter (id int PRIMARY KEY, n int NOT NULL); INSERT INTO counter VALUES (1, 0)")
			return err
		},
		Actors: []interleave.Actor{{Name: "alice", Run: inc}, {Name: "bob", Run: inc}},
		Invariant: func(ctx context.Context, db *pgx.Conn, _ []interleave.ActorResult) error {
			var n int
			if err := db.QueryRow(ctx, "SELECT n FROM counter WHERE id = 1").Scan(&n); err != nil {
				return err
			}
			if n != 2 {
				return fmt.Errorf("lost update: got %d", n)
			}
			return nil
		},
	}
}

// atomicCounter is the counter repaired with one statement: each actor
// sends a single UPDATE where the recording has a SELECT and an UPDATE.
func atomicCounter() interleave.Scenario {
	sc := counter(true)
	inc := func(ctx context.Context, cs string) (any, error) {
		c, err := pgx.Connect(ctx, cs)
		if err != nil {
			return nil, err
		}
		defer c.Close(ctx)
		var n int
		err = c.QueryRow(ctx, "UPDATE counter SET n = n + 1 WHERE id = 1 RETURNING n").Scan(&n)
		return n, err
	}
	sc.Actors = []interleave.Actor{{Name: "alice", Run: inc}, {Name: "bob", Run: inc}}
	return sc
}

// The helper tests run in a child process (so that their expected failures
// do not fail this run); the parent checks the child's verdict and output.
func TestHelperChild(t *testing.T) {
	dir := os.Getenv("INTERLEAVETEST_CHILD_DIR")
	if dir == "" {
		return // a helper process (as in os/exec's tests), not a test of its own
	}
	o := interleave.Options{Source: interleave.SourceOptions{ProgramDir: os.Getenv("INTERLEAVETEST_PKG_DIR")}}
	os.Chdir(dir) // artifacts go to dir/testdata/interleave
	switch os.Getenv("INTERLEAVETEST_CHILD") {
	case "explore-bug":
		Explore(t, counter(false), o)
	case "replay-bug":
		Replay(t, counter(false), ArtifactPath("counter"), o)
	case "replay-fixed":
		Replay(t, counter(true), ArtifactPath("counter"), o)
	case "replay-atomic":
		Replay(t, atomicCounter(), ArtifactPath("counter"), o)
	case "replay-renamed":
		sc := counter(true)
		sc.Name = "counter-fixed"
		Replay(t, sc, ArtifactPath("counter"), o)
	case "replay-missing":
		Replay(t, counter(true), "testdata/interleave/missing.json", o)
	}
}

func child(t *testing.T, dir, mode string) (bool, string) {
	cmd := exec.Command(os.Args[0], "-test.run", "^TestHelperChild$", "-test.v")
	pkg, _ := os.Getwd()
	cmd.Env = append(os.Environ(), "INTERLEAVETEST_CHILD="+mode, "INTERLEAVETEST_CHILD_DIR="+dir, "INTERLEAVETEST_PKG_DIR="+pkg)
	out, err := cmd.CombinedOutput()
	return err == nil, string(out)
}

func TestExploreAndReplayVerdicts(t *testing.T) {
	dir := t.TempDir()
	ok, out := child(t, dir, "explore-bug")
	if ok || !strings.Contains(out, "Saved testdata/interleave/counter.json") {
		t.Fatalf("Explore on the bug: passed=%v\n%s", ok, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "testdata/interleave/counter.json")); err != nil {
		t.Fatalf("the artifact was not saved: %v", err)
	}
	ok, out = child(t, dir, "replay-bug")
	if ok || !strings.Contains(out, "still happens") {
		t.Fatalf("Replay while the bug is there must fail: passed=%v\n%s", ok, out)
	}
	ok, out = child(t, dir, "replay-fixed")
	if !ok || !strings.Contains(out, "pass") {
		t.Fatalf("Replay after the repair must pass: passed=%v\n%s", ok, out)
	}
	// A repair that sends fewer commands than were recorded: the recorded
	// order can be followed only in part, and the invariant holds: a pass,
	// with what to run next.
	ok, out = child(t, dir, "replay-atomic")
	if !ok || !strings.Contains(out, "The recorded failure no longer happens") {
		t.Fatalf("Replay after a one-statement repair must pass: passed=%v\n%s", ok, out)
	}
	// A repair that renamed the scenario replays nothing: it fails and says
	// that the Name must stay.
	ok, out = child(t, dir, "replay-renamed")
	if ok || !strings.Contains(out, "must keep its Name") {
		t.Fatalf("Replay against a renamed scenario must fail: passed=%v\n%s", ok, out)
	}
	ok, out = child(t, dir, "replay-missing")
	if ok || !strings.Contains(out, "-interleave.record") {
		t.Fatalf("Replay of a missing artifact must fail and say how to record: passed=%v\n%s", ok, out)
	}
}

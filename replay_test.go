package interleave_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/internal/testkit/fixture"
)

// TestExactReplayReproduces20Times records the counter failure and replays
// it exactly 20 times in a row.
func TestExactReplayReproduces20Times(t *testing.T) {
	ctx := fixture.Context(t)
	o := opts()
	o.Source.ProgramDir, _ = os.Getwd()
	res, err := interleave.Explore(ctx, fixture.Counter(false), o)
	if err != nil || res.Outcome != interleave.OutcomeViolation {
		t.Fatalf("record: %v %v", err, res)
	}
	for i := 0; i < 20; i++ {
		r, err := interleave.Replay(ctx, fixture.Counter(false), res.Artifact, interleave.ReplayOptions{Options: o})
		if err != nil {
			t.Fatal(err)
		}
		if r.Outcome != interleave.OutcomeViolation || !r.SameFailure || r.Followed != r.Of || r.Commands != 4 {
			t.Fatalf("replay %d: %s (same failure %v, followed %d of %d, %d commands): %s %v", i+1, r.Outcome, r.SameFailure, r.Followed, r.Of, r.Commands, r.Message, r.Differences)
		}
		// The same order failing the same way keeps the recording's
		// explanation: its anomaly and its critical pair.
		if x := r.Artifact.Explanation; x == nil || res.Artifact.Explanation == nil || x.Anomaly != res.Artifact.Explanation.Anomaly || x.CriticalPair == nil || res.Artifact.Explanation.CriticalPair == nil || x.CriticalPair.First != res.Artifact.Explanation.CriticalPair.First || x.CriticalPair.Second != res.Artifact.Explanation.CriticalPair.Second {
			t.Fatalf("replay %d's artifact explains %+v; the recording %+v", i+1, r.Artifact.Explanation, res.Artifact.Explanation)
		}
	}
}

// tempProgram writes a scenario program into a module of its own that uses
// this checkout of Interleave, as an application repository would, and
// builds it. The counter's seed value comes from COUNTER_SEED.
func tempProgram(t *testing.T) (dir, bin string) {
	t.Helper()
	root, _ := os.Getwd()
	dir = t.TempDir()
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	requires := string(gomod[strings.Index(string(gomod), "require"):])
	goLine := regexp.MustCompile(`(?m)^go [0-9.]+$`).FindString(string(gomod)) // the oldest Go this module supports
	mod := "module example.com/countertest\n\n" + goLine + "\n\n" + requires + "\nrequire github.com/pginterleave/interleave v0.0.0\n\nreplace github.com/pginterleave/interleave => " + root + "\n"
	sum, _ := os.ReadFile(filepath.Join(root, "go.sum"))
	main := `package main

// A counter scenario whose seed comes from the environment.

import (
	"context"
	"fmt"
	"os"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
)

func inc(ctx context.Context, cs string) (any, error) {
	c, err := pgx.Connect(ctx, cs)
	if err != nil {
		return nil, err
	}
	defer c.Close(ctx)
	var n int
	if err := c.QueryRow(ctx, "SELECT n FROM counter WHERE id = 1").Scan(&n); err != nil {
		return nil, err
	}
	_, err = c.Exec(ctx, "UPDATE counter SET n = $1 WHERE id = 1", n+1)
	return n, err
}

func main() {
	seed := os.Getenv("COUNTER_SEED")
	if seed == "" {
		seed = "0"
	}
	interleave.Main(interleave.Scenario{
		Name: "counter",
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, "CREATE TABLE counter (id int PRIMARY KEY, n int NOT NULL); INSERT INTO counter VALUES (1, "+seed+")")
			return err
		},
		Actors: []interleave.Actor{{Name: "alice", Run: inc}, {Name: "bob", Run: inc}},
		Invariant: func(ctx context.Context, db *pgx.Conn, _ []interleave.ActorResult) error {
			var n int
			db.QueryRow(ctx, "SELECT n FROM counter WHERE id = 1").Scan(&n)
			if n != 2 {
				return fmt.Errorf("lost update: got %d", n)
			}
			return nil
		},
	})
}
`
	for name, data := range map[string]string{"go.mod": mod, "go.sum": string(sum), "main.go": main} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, build(t, dir)
}

func build(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "scenario")
	cmd := exec.Command("go", "build", "-mod=mod", "-o", bin, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the temporary scenario program: %v\n%s", err, out)
	}
	return bin
}

func runProgram(t *testing.T, bin, dir string, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "INTERLEAVE_PROGRAM_DIR="+dir, "TEST_DATABASE_URL="), env...)
	out, _ := cmd.CombinedOutput()
	return cmd.ProcessState.ExitCode(), string(out)
}

// TestOneByteSourceChangeIsIncompatibleBeforeAnySQL changes one byte of the
// program's source after recording. The exact replay must exit 3 and name
// the file, before it starts a server (proved by pointing --pg-bin at a
// directory without PostgreSQL: starting one would fail with exit 2).
func TestOneByteSourceChangeIsIncompatibleBeforeAnySQL(t *testing.T) {
	dir, bin := tempProgram(t)
	art := filepath.Join(t.TempDir(), "failure.json")
	if code, out := runProgram(t, bin, dir, nil, "run", "--out", art); code != 1 {
		t.Fatalf("record: exit %d\n%s", code, out)
	}
	if code, out := runProgram(t, bin, dir, nil, "replay", art); code != 1 || !strings.Contains(out, "the same failure as recorded") {
		t.Fatalf("unchanged replay: exit %d\n%s", code, out)
	}
	src := filepath.Join(dir, "main.go")
	data, _ := os.ReadFile(src)
	data = []byte(strings.Replace(string(data), "// A counter", "// a counter", 1))
	os.WriteFile(src, data, 0o644)
	bin = build(t, dir)
	code, out := runProgram(t, bin, dir, nil, "replay", art, "--pg-bin", t.TempDir())
	if code != 3 || !strings.Contains(out, "source file main.go changed") {
		t.Fatalf("replay after a one-byte change: exit %d, want 3 naming main.go\n%s", code, out)
	}
	if strings.Contains(out, "initdb") {
		t.Fatalf("the replay tried to start a server:\n%s", out)
	}
}

// TestChangedSetupIsAFixtureDifference records with one seed row and
// replays with another: same sources, different database after setup.
func TestChangedSetupIsAFixtureDifference(t *testing.T) {
	dir, bin := tempProgram(t)
	art := filepath.Join(t.TempDir(), "failure.json")
	if code, out := runProgram(t, bin, dir, nil, "run", "--out", art); code != 1 {
		t.Fatalf("record: exit %d\n%s", code, out)
	}
	code, out := runProgram(t, bin, dir, []string{"COUNTER_SEED=5"}, "replay", art)
	if code != 3 || !strings.Contains(out, "fixture difference after setup: part table public.counter") {
		t.Fatalf("replay with another seed: exit %d, want 3 with a fixture difference\n%s", code, out)
	}
}

// A repair that changes the commands (one atomic UPDATE instead of a read
// and a write) lets a guided replay follow only part of the recorded order;
// the outcome stands (a pass, exit 0, as interleavetest judges it), and the
// message says how far the order was followed and to search every order.
func TestGuidedReplayThatFollowsPartOfTheOrderPasses(t *testing.T) {
	ctx := fixture.Context(t)
	o := opts()
	res, err := interleave.Explore(ctx, fixture.Counter(false), o)
	if err != nil || res.Outcome != interleave.OutcomeViolation {
		t.Fatalf("record: %v %v", err, res)
	}
	// The changed code: one atomic UPDATE per actor, no read first.
	changed := fixture.Counter(true)
	atomic := func(ctx context.Context, cs string) (any, error) {
		c, err := pgx.Connect(ctx, cs)
		if err != nil {
			return nil, err
		}
		defer c.Close(ctx)
		_, err = c.Exec(ctx, "UPDATE counter SET n = n + 1 WHERE id = 1")
		return nil, err
	}
	for i := range changed.Actors {
		changed.Actors[i].Run = atomic
	}
	r, err := interleave.Replay(ctx, changed, res.Artifact, interleave.ReplayOptions{Options: o, Guided: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != interleave.OutcomePass || r.Followed >= r.Of || r.Of != 4 {
		t.Fatalf("guided replay: %s, followed %d of %d; want a pass after following part of the 4 recorded commands: %s %v", r.Outcome, r.Followed, r.Of, r.Message, r.Differences)
	}
	if !strings.Contains(r.Message, "2 of the 4 recorded commands") || !strings.Contains(r.Message, "interleave run") {
		t.Fatalf("message %q does not say how far the order was followed and what to run next", r.Message)
	}
	if code := r.ExitCode(); code != interleave.ExitPass {
		t.Fatalf("exit code %d, want %d", code, interleave.ExitPass)
	}
}

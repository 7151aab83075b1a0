// Package interleavetest runs Interleave from `go test`: Explore fails a test
// when a violating order exists and saves the artifact under
// testdata/interleave/; Replay keeps that artifact as a regression test that
// fails while the violation still reproduces.
//
// The workflow: find (Explore fails and saves the artifact), keep (add a
// Replay test for it; it fails while the bug is there), fix (the sources
// changed, so Replay follows the recorded order as far as the new code
// allows and passes once the invariant holds), re-record with
// `go test -run TestX -interleave.record` when you want a fresh artifact.
package interleavetest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/cmd/cli"
	"github.com/pginterleave/interleave/pgserver"
)

var record = flag.Bool("interleave.record", false, "re-record the artifacts that interleavetest.Replay replays")

// Dir is where artifacts are saved, relative to the test's package.
const Dir = "testdata/interleave"

var shared *pgserver.Local

// Main runs the tests with one managed PostgreSQL shared by every Explore
// and Replay call of the test binary, and removes it afterwards. Call it
// from TestMain:
//
//	func TestMain(m *testing.M) { interleavetest.Main(m) }
//
// Without it each call starts its own server (about a second each).
func Main(m *testing.M) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	srv, err := pgserver.StartLocal(ctx, pgserver.LocalOptions{})
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "interleavetest: %v\n", err)
		os.Exit(2)
	}
	shared = srv
	code := m.Run()
	srv.Close()
	os.Exit(code)
}

// Server is the managed server Main started, or nil without Main.
func Server() pgserver.Server {
	if shared == nil {
		return nil
	}
	return shared
}

func prepare(opts interleave.Options) interleave.Options {
	if opts.Server.Use == nil && shared != nil && opts.Server.DatabaseURL == "" && os.Getenv("TEST_DATABASE_URL") == "" {
		opts.Server.Use = shared
	}
	if opts.Source.ProgramDir == "" {
		opts.Source.ProgramDir, _ = os.Getwd()
	}
	return opts
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// ArtifactPath is where Explore saves the artifact of scenario name.
func ArtifactPath(name string) string {
	return filepath.Join(Dir, unsafeName.ReplaceAllString(name, "_")+".json")
}

// Explore searches sc within opts' budgets. A violation (or actor error)
// fails the test with the summary and saves the artifact at
// ArtifactPath(sc.Name); an inconclusive search fails it too, saying why.
func Explore(t testing.TB, sc interleave.Scenario, opts interleave.Options) *interleave.Result {
	t.Helper()
	opts = prepare(opts)
	res, err := interleave.Explore(context.Background(), sc, opts)
	if err != nil {
		t.Fatalf("interleave: %v", err)
	}
	var summary strings.Builder
	cli.PrintExplore(&summary, res)
	switch res.Outcome {
	case interleave.OutcomePass:
		t.Logf("interleave: %s", strings.TrimSpace(summary.String()))
	case interleave.OutcomeViolation, interleave.OutcomeActorError:
		path := ArtifactPath(sc.Name)
		if err := save(path, res.Artifact); err != nil {
			t.Errorf("interleave: %s\n(could not save the artifact: %v)", summary.String(), err)
		} else {
			t.Errorf("interleave: %sSaved %s; keep it as a regression test with interleavetest.Replay(t, scenario, %q).", summary.String(), path, path)
		}
	default:
		t.Errorf("interleave: %s", summary.String())
	}
	return res
}

func save(path string, a *artifact.Artifact) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return artifact.Write(path, a, true)
}

// Replay replays the artifact at path against sc: exactly when nothing
// changed since it was recorded, guided (the recorded order of actors, as far
// as the current commands allow) when the sources changed. The test fails
// while the recorded violation still reproduces, and when the artifact is
// missing or invalid. With -interleave.record it searches again and saves
// a new artifact at path when a violation is found.
func Replay(t testing.TB, sc interleave.Scenario, path string, opts interleave.Options) *interleave.ReplayResult {
	t.Helper()
	opts = prepare(opts)
	if *record {
		res, err := interleave.Explore(context.Background(), sc, opts)
		if err != nil {
			t.Fatalf("interleave: re-record: %v", err)
		}
		if res.Artifact != nil && (res.Outcome == interleave.OutcomeViolation || res.Outcome == interleave.OutcomeActorError) {
			if err := save(path, res.Artifact); err != nil {
				t.Fatalf("interleave: re-record: %v", err)
			}
			t.Logf("interleave: re-recorded %s: %s", path, res.Message)
		} else {
			t.Logf("interleave: -interleave.record found no violation (%s); %s is unchanged", res.Outcome, path)
		}
	}
	rec, err := artifact.Read(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			t.Fatalf("interleave: no artifact at %s; record one with `go test -run '%s' -interleave.record`", path, t.Name())
		}
		t.Fatalf("interleave: %v", err)
	}
	ro := interleave.ReplayOptions{Options: opts, Source: path}
	res, err := interleave.Replay(context.Background(), sc, rec, ro)
	if err != nil {
		t.Fatalf("interleave: replay %s: %v", path, err)
	}
	if res.Outcome == interleave.OutcomeIncompatible && !res.Guided {
		t.Logf("interleave: exact replay of %s does not apply (%s); replaying guided", path, strings.Join(res.Differences, "; "))
		ro.Guided = true
		if res, err = interleave.Replay(context.Background(), sc, rec, ro); err != nil {
			t.Fatalf("interleave: guided replay %s: %v", path, err)
		}
	}
	var summary strings.Builder
	cli.PrintReplay(&summary, res)
	switch {
	case res.Outcome == interleave.OutcomeViolation, res.Outcome == interleave.OutcomeActorError:
		t.Errorf("interleave: the failure recorded in %s still happens:\n%s", path, summary.String())
	case res.Outcome == interleave.OutcomePass:
		// The recorded failure did not come back. A guided replay that
		// could follow only part of the recorded order (the repair changed
		// the commands, e.g. a lock now makes an actor wait) and passed is
		// a pass, as `interleave replay --guided` exits 0 for it.
		t.Logf("interleave: %s\nThe recorded failure no longer happens; keep this test as its regression, and search every order of the changed code with interleavetest.Explore (or `interleave run`).",
			strings.TrimSpace(summary.String()))
	case res.Outcome == interleave.OutcomeIncompatible:
		// Nothing of the recording applies: another scenario name, other
		// actors. Passing here would keep a regression test that tests nothing.
		t.Errorf("interleave: %s cannot be replayed against scenario %q:\n%s\nA repaired scenario must keep its Name and its actors' names; to record the changed scenario anew, run `go test -run '%s' -interleave.record`.",
			path, sc.Name, summary.String(), t.Name())
	default:
		t.Errorf("interleave: %s", summary.String())
	}
	return res
}

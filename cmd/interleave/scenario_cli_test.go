package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pginterleave/interleave/internal/testkit/testenv"
)

// Scenario files on the command line, run in-process (no Go program is
// built): a YAML scenario finds the lost update and its artifact replays
// exactly; an isolation-tester spec matches the tester's expected output.
// Each invocation starts and removes its own throwaway PostgreSQL.
func TestCLIScenarioFiles(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "interleave")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	root, _ := filepath.Abs("../..")
	tmp := t.TempDir()
	art := filepath.Join(tmp, "f.json")
	bad := filepath.Join(tmp, "bad.yaml")
	os.WriteFile(bad, []byte("name: counter\nactors:\n  - name: alice\n    command: [true]\n  - name: bob\n"), 0o644)
	isolation := testenv.Shared(t, "pg-isolation", "specs/deadlock-simple.spec", "expected/deadlock-simple.out")
	run := func(args ...string) (int, string) {
		cmd := exec.Command(bin, args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "TEST_DATABASE_URL=")
		out, _ := cmd.CombinedOutput()
		return cmd.ProcessState.ExitCode(), string(out)
	}
	for _, step := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"run", "scenario/testdata/counter.yaml", "--out", art}, 1, []string{"counter: 1 attempted, 1 completed; violations: 1; failure.", "Both increments must be retained: got 1, want 2", "Saved " + art}},
		{[]string{"replay", "scenario/testdata/counter.yaml", art}, 1, []string{"counter: violation (replay): 4 commands, the same failure as recorded."}},
		{[]string{"run", "scenario/testdata/counter-fixed.yaml", "--max-runs", "50"}, 0, []string{"counter-fixed: 2 attempted, 2 completed; violations: 0; frontier exhausted"}},
		{[]string{"run", filepath.Join(isolation, "specs", "deadlock-simple.spec"), "--expected", filepath.Join(isolation, "expected", "deadlock-simple.out")}, 0, []string{"deadlock-simple: the output matches"}},
		{[]string{"run", bad}, 2, []string{"bad.yaml:5:5: actor 2 has no command"}},
		{[]string{"replay", filepath.Join(isolation, "specs", "deadlock-simple.spec"), art}, 2, []string{"specs run with `interleave run"}},
	} {
		code, out := run(step.args...)
		if code != step.code {
			t.Fatalf("interleave %s: exit %d, want %d\n%s", strings.Join(step.args, " "), code, step.code, out)
		}
		for _, w := range step.want {
			if !strings.Contains(out, w) {
				t.Fatalf("interleave %s: output lacks %q\n%s", strings.Join(step.args, " "), w, out)
			}
		}
	}
}

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The CLI end to end, as a user runs it from the repository root: build the
// binary, find the counter race, replay it exactly and guided against the
// repair, minimize it, and run the demo both ways. Each invocation starts
// and removes its own throwaway PostgreSQL.
func TestCLIWalkthrough(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "interleave")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	root, _ := filepath.Abs("../..")
	art := filepath.Join(t.TempDir(), "failure.json")
	minimal := filepath.Join(t.TempDir(), "minimal.json")
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
		{[]string{"run", "./examples/counter", "--out", art}, 1, []string{"counter: 1 attempted, 1 completed; violations: 1; failure.", "Both increments must be retained: got 1, want 2",
			"The order that failed", "    2  alice  SELECT n FROM counter WHERE id = 1\n    4  bob    SELECT n FROM counter WHERE id = 1\n    6  alice  UPDATE counter SET n = $1 WHERE id = 1  -- $1=1 (int4?)\n", "Saved " + art}},
		{[]string{"run", "./examples/counter", "--out", art}, 2, []string{"pass --force to overwrite"}},
		{[]string{"run", "./examples/counter-fixed"}, 0, []string{"4 attempted, 4 completed; violations: 0; frontier exhausted"}},
		{[]string{"replay", "./examples/counter", art}, 1, []string{"violation (replay): 4 commands, the same failure as recorded."}},
		{[]string{"replay", "./examples/counter-fixed", art}, 3, []string{"incompatible (replay)", "examples/counter-fixed/main.go was added"}},
		{[]string{"replay", "./examples/counter-fixed", art, "--guided"}, 0, []string{"pass (guided replay)", "Followed 4 of 4"}},
		{[]string{"minimize", "./examples/counter", art, "--out", minimal}, 1, []string{"Reduced 0 choices to 0", "locally-minimal", "Saved " + minimal}},
		{[]string{"replay", "./examples/counter", minimal}, 1, []string{"the same failure as recorded"}},
		{[]string{"report", art, "--out", art + ".html"}, 0, []string{"Wrote"}},
		{[]string{"report", art, "--out", art + ".html"}, 2, []string{"--force"}},
		{[]string{"trace", art}, 0, []string{"unit alice#0.1", "SELECT n FROM counter WHERE id = 1", "ReadyForQuery"}},
		{[]string{"trace", art, "--json"}, 0, []string{`"streams"`, `"releaseStep"`, `"SELECT n FROM counter WHERE id = 1"`}},
		{[]string{"trace", art, "--pcap", art + ".pcapng"}, 0, []string{"Wrote"}},
		{[]string{"demo"}, 1, []string{"Oversold: 2 orders for 1 item in stock"}},
		// The count of attempts follows the reduction's rules (8 since 5
		// December: a guarded UPDATE is not re-checked after a wait, case
		// rc-hold-qual-fails-at-snapshot); the verdict does not.
		{[]string{"demo", "--safe"}, 0, []string{"oversell-safe: ", " completed; violations: 0; frontier exhausted"}},
		{[]string{"run", "./examples/nonexistent"}, 2, []string{"no such file or directory"}},
		{[]string{"run", "./examples/counter", "--max-runs", "-1"}, 2, []string{"--max-runs cannot be negative"}},
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
	// A malformed artifact is refused with exit 2 and a reason.
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"schemaVersion": 1, "scenario": {"name": "counter", "actors": ["alice"]}, "outcome": {"kind": "nonsense"}}`), 0o644)
	if code, out := run("replay", "./examples/counter", bad); code != 2 || !strings.Contains(out, "invalid artifact") {
		t.Fatalf("malformed artifact: exit %d\n%s", code, out)
	}
}

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pginterleave/interleave/internal/testkit/jsseed"
)

// The original tool's example, unchanged: recorded, exported, and replayed
// offline from a copy of the bundle in a directory with a space in its name.
func TestExportJavaScriptScenarioReplaysOffline(t *testing.T) {
	bin := interleaveBinary(t)
	dir := jsseed.Project(t, true, nil)
	run := func(wd string, args ...string) (string, int) {
		cmd := exec.Command(bin, args...)
		cmd.Dir = wd
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	if out, code := run(dir, "run", "scenario.mjs", "--out", "failure.json"); code != 1 {
		t.Fatalf("run: exit %d\n%s", code, out)
	}
	bundle := filepath.Join(t.TempDir(), "bundle")
	if out, code := run(dir, "export", "scenario.mjs", "failure.json", "--out", bundle); code != 0 {
		t.Fatalf("export: exit %d\n%s", code, out)
	}
	if out, code := run(dir, "export", "--verify", bundle); code != 0 || !strings.Contains(out, "every file matches") {
		t.Fatalf("verify: exit %d\n%s", code, out)
	}
	moved := filepath.Join(t.TempDir(), "a dir", "b")
	if err := os.MkdirAll(filepath.Dir(moved), 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-r", bundle, moved).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	cmd := exec.Command(filepath.Join(moved, "replay"))
	cmd.Env = append(os.Environ(), "npm_config_offline=true")
	out, err := cmd.CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "the same failure as recorded") || !strings.Contains(string(out), "Both increments must be retained") {
		t.Fatalf("./replay from a copy: %v\n%s", err, out)
	}
}

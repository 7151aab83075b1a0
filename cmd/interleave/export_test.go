package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pginterleave/interleave/artifact"
)

// TestExportRoundTrip: record the counter failure, export a bundle, copy it
// to a fresh directory whose path has spaces, and replay it there with no
// network and an empty module cache: exit 1 with the same failure
// fingerprint. Then --verify catches a changed file, and the replay reports
// the change as incompatible.
func TestExportRoundTrip(t *testing.T) {
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "interleave")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	root, _ := filepath.Abs("../..")
	art := filepath.Join(tmp, "failure.json")
	bundle := filepath.Join(tmp, "bundle")
	run := func(dir string, env []string, name string, args ...string) (int, string) {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(append(os.Environ(), "TEST_DATABASE_URL="), env...)
		out, _ := cmd.CombinedOutput()
		return cmd.ProcessState.ExitCode(), string(out)
	}
	if code, out := run(root, nil, bin, "run", "./examples/counter", "--out", art); code != 1 {
		t.Fatalf("record: exit %d\n%s", code, out)
	}
	if code, out := run(root, nil, bin, "export", "./examples/counter", art, "--out", bundle); code != 0 {
		t.Fatalf("export: exit %d\n%s", code, out)
	}
	elsewhere := filepath.Join(tmp, "a fresh dir", "with spaces")
	if err := os.MkdirAll(elsewhere, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-r", bundle, elsewhere).CombinedOutput(); err != nil {
		t.Fatalf("copy: %v %s", err, out)
	}
	moved := filepath.Join(elsewhere, "bundle")
	offline := []string{"GOFLAGS=-mod=vendor", "GOPROXY=off", "GOMODCACHE=" + filepath.Join(tmp, "empty-modcache"), "INTERLEAVE_PROGRAM_DIR="}
	code, out := run(moved, offline, "./replay")
	if code != 1 || !strings.Contains(out, "the same failure as recorded") {
		t.Fatalf("offline replay from the bundle: exit %d, want 1 with the same failure\n%s", code, out)
	}
	rec, _ := artifact.Read(art)
	if !strings.Contains(out, rec.Outcome.Message) {
		t.Fatalf("the replay's failure differs from the recording's %q:\n%s", rec.Outcome.Message, out)
	}
	// The bundle builds from its own sources offline too (as on another platform).
	if code, out := run(filepath.Join(moved, "src"), offline, "go", "build", "-o", filepath.Join(tmp, "rebuilt"), "./examples/counter"); code != 0 {
		t.Fatalf("offline build from the bundle's sources: exit %d\n%s", code, out)
	}
	if code, out := run(root, nil, bin, "export", "--verify", moved); code != 0 || !strings.Contains(out, "every file matches") {
		t.Fatalf("verify: exit %d\n%s", code, out)
	}
	src := filepath.Join(moved, "src", "examples", "counter", "main.go")
	data, _ := os.ReadFile(src)
	os.WriteFile(src, append(data, []byte("\n// changed\n")...), 0o644)
	if code, out := run(root, nil, bin, "export", "--verify", moved); code != 2 || !strings.Contains(out, "src/examples/counter/main.go: changed") {
		t.Fatalf("verify after a change: exit %d\n%s", code, out)
	}
	if code, out := run(moved, offline, "./replay"); code != 3 || !strings.Contains(out, "examples/counter/main.go changed") {
		t.Fatalf("replay after a change: exit %d, want 3\n%s", code, out)
	}
}

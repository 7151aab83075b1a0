package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pginterleave/interleave/artifact"
)

// exportFixture is the interleave binary and the counter's recorded failure,
// shared by the export tests.
type exportFixture struct {
	t         *testing.T
	bin, root string
	tmp, art  string
}

func newExportFixture(t *testing.T) *exportFixture {
	tmp := t.TempDir()
	f := &exportFixture{t: t, bin: filepath.Join(tmp, "interleave"), tmp: tmp, art: filepath.Join(tmp, "failure.json")}
	if out, err := exec.Command("go", "build", "-o", f.bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	f.root, _ = filepath.Abs("../..")
	if code, out := f.run(f.root, nil, f.bin, "run", "./examples/counter", "--out", f.art); code != 1 {
		t.Fatalf("record: exit %d\n%s", code, out)
	}
	return f
}

func (f *exportFixture) run(dir string, env []string, name string, args ...string) (int, string) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "TEST_DATABASE_URL="), env...)
	out, _ := cmd.CombinedOutput()
	return cmd.ProcessState.ExitCode(), string(out)
}

// offline is how a bundle replays: vendored sources, no network, an empty
// module cache, no program directory inherited.
func (f *exportFixture) offline() []string {
	return []string{"GOFLAGS=-mod=vendor", "GOPROXY=off", "GOMODCACHE=" + filepath.Join(f.tmp, "empty-modcache"), "INTERLEAVE_PROGRAM_DIR="}
}

// TestExport: a bundle exported to a relative --out (as the README shows)
// is copied to a fresh directory whose path has spaces and replayed there
// with no network and an empty module cache: exit 1 with the recorded
// failure. --verify catches a changed file and a binary that is not where
// ./replay runs it, and the replay reports a changed source as
// incompatible. Outputs are checked before any work, and a failed export
// leaves nothing behind.
func TestExport(t *testing.T) {
	f := newExportFixture(t)
	rec, err := artifact.Read(f.art)
	if err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(f.root, "examples", "counter")

	t.Run("refuses a missing parent directory before any work", func(t *testing.T) {
		out := filepath.Join(f.tmp, "nonexistent", "dir", "b")
		code, msg := f.run(f.tmp, nil, f.bin, "export", prog, f.art, "--out", out)
		if code != 2 || !strings.Contains(msg, "does not exist; create it first") {
			t.Fatalf("export --out %s: exit %d, want 2 with a reason\n%s", out, code, msg)
		}
		if strings.Contains(msg, "copied") || strings.Contains(msg, "vendored") {
			t.Fatalf("the output was checked only after work started:\n%s", msg)
		}
		if _, err := os.Stat(filepath.Join(f.tmp, "nonexistent")); err == nil {
			t.Fatal("export created the missing parent directories")
		}
	})

	t.Run("a failed export leaves nothing behind", func(t *testing.T) {
		dir := t.TempDir()
		// No go command: vendoring fails after the sources are copied.
		code, msg := f.run(dir, []string{"PATH=" + filepath.Join(dir, "no-go-here")}, f.bin, "export", prog, f.art, "--out", "b")
		if code != 2 {
			t.Fatalf("export without a go command: exit %d, want 2\n%s", code, msg)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Fatalf("a failed export left %v in its directory\n%s", left, msg)
		}
		// An existing empty directory stays as it was.
		if err := os.Mkdir(filepath.Join(dir, "b"), 0o755); err != nil {
			t.Fatal(err)
		}
		if code, msg := f.run(dir, []string{"PATH=" + filepath.Join(dir, "no-go-here")}, f.bin, "export", prog, f.art, "--out", "b"); code != 2 {
			t.Fatalf("export without a go command: exit %d, want 2\n%s", code, msg)
		}
		if left, _ := os.ReadDir(dir); len(left) != 1 {
			t.Fatalf("a failed export into an empty directory left %v", left)
		}
	})

	// The README's command: a relative --out.
	code, msg := f.run(f.tmp, nil, f.bin, "export", prog, f.art, "--out", "bundle/")
	if code != 0 {
		t.Fatalf("export --out bundle/: exit %d\n%s", code, msg)
	}
	bundle := filepath.Join(f.tmp, "bundle")
	for rel, want := range map[string]os.FileMode{".": 0o700, "artifact.json": 0o600, "bin/scenario": 0o700, "replay": 0o700, "src/go.mod": 0o600, "src/vendor": 0o700} {
		st, err := os.Stat(filepath.Join(bundle, rel))
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Mode().Perm(); got != want {
			t.Errorf("bundle/%s has mode %v, want %v (a bundle holds the recording's data)", rel, got, want)
		}
	}
	if code, out := f.run(bundle, f.offline(), "./replay"); code != 1 || !strings.Contains(out, "the same failure as recorded") {
		t.Fatalf("./replay in the bundle written to a relative --out: exit %d, want 1\n%s", code, out)
	}

	elsewhere := filepath.Join(f.tmp, "a fresh dir", "with spaces")
	if err := os.MkdirAll(elsewhere, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-r", bundle, elsewhere).CombinedOutput(); err != nil {
		t.Fatalf("copy: %v %s", err, out)
	}
	moved := filepath.Join(elsewhere, "bundle")
	code, out := f.run(moved, f.offline(), "./replay")
	if code != 1 || !strings.Contains(out, "the same failure as recorded") {
		t.Fatalf("offline replay from the bundle: exit %d, want 1 with the same failure\n%s", code, out)
	}
	if !strings.Contains(out, rec.Outcome.Message) {
		t.Fatalf("the replay's failure differs from the recording's %q:\n%s", rec.Outcome.Message, out)
	}
	// The bundle builds from its own sources offline too (as on another platform).
	if code, out := f.run(filepath.Join(moved, "src"), f.offline(), "go", "build", "-o", filepath.Join(f.tmp, "rebuilt"), "./examples/counter"); code != 0 {
		t.Fatalf("offline build from the bundle's sources: exit %d\n%s", code, out)
	}
	if code, out := f.run(f.root, nil, f.bin, "export", "--verify", moved); code != 0 || !strings.Contains(out, "every file matches") {
		t.Fatalf("verify: exit %d\n%s", code, out)
	}

	// A binary that is not where ./replay runs it: the manifest alone
	// would not see it (it lists what was written, wherever that was).
	misplaced := filepath.Join(f.tmp, "misplaced")
	if out, err := exec.Command("cp", "-r", bundle, misplaced).CombinedOutput(); err != nil {
		t.Fatalf("copy: %v %s", err, out)
	}
	if err := os.Rename(filepath.Join(misplaced, "bin"), filepath.Join(misplaced, "src", "bin")); err != nil {
		t.Fatal(err)
	}
	if code, out := f.run(f.root, nil, f.bin, "export", "--verify", misplaced); code != 2 || !strings.Contains(out, "bin/scenario: missing: ./replay needs it") {
		t.Fatalf("verify of a bundle whose binary is elsewhere: exit %d, want 2\n%s", code, out)
	}

	src := filepath.Join(moved, "src", "examples", "counter", "main.go")
	data, _ := os.ReadFile(src)
	os.WriteFile(src, append(data, []byte("\n// changed\n")...), 0o644)
	if code, out := f.run(f.root, nil, f.bin, "export", "--verify", moved); code != 2 || !strings.Contains(out, "src/examples/counter/main.go: changed") {
		t.Fatalf("verify after a change: exit %d\n%s", code, out)
	}
	if code, out := f.run(moved, f.offline(), "./replay"); code != 3 || !strings.Contains(out, "examples/counter/main.go changed") {
		t.Fatalf("replay after a change: exit %d, want 3\n%s", code, out)
	}
}

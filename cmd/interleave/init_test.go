package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// init then run, as a new user does, in a temporary directory outside this
// repository: each kind of scaffold finds its lost update (exit 1). The Go
// scaffold's go.mod reaches this checkout through the replace directive
// init wrote (the source the binary was built from); go mod tidy resolves
// the rest from the module cache or the module proxy. The JavaScript
// scaffold installs pg from the npm registry.
func TestInitThenRun(t *testing.T) {
	bin := interleaveBinary(t)
	root, _ := filepath.Abs("../..")
	const lost = "Both likes must be counted"
	t.Run("go", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "likes")
		r := runIn(t, filepath.Dir(dir), nil, bin, "init", "likes")
		if r.code != 0 || !strings.Contains(r.stdout, "go mod tidy") {
			t.Fatalf("init: %s", r)
		}
		mod, _ := os.ReadFile(filepath.Join(dir, "go.mod"))
		if want := "replace github.com/pginterleave/interleave => " + root; !strings.Contains(string(mod), want) {
			t.Fatalf("go.mod lacks %q:\n%s", want, mod)
		}
		if r := runIn(t, dir, []string{"GOFLAGS=-mod=mod"}, "go", "mod", "tidy"); r.code != 0 {
			t.Fatalf("go mod tidy: %s", r)
		}
		r = runIn(t, dir, nil, bin, "run", ".", "--out", "failure.json")
		if r.code != 1 || !strings.Contains(r.stdout, lost+": got 1, want 2") || !strings.Contains(r.stdout, "Saved failure.json") {
			t.Fatalf("run: %s", r)
		}
	})
	t.Run("js", func(t *testing.T) {
		if _, err := exec.LookPath("npm"); err != nil {
			t.Skip("npm is not on PATH (scripts/ensure-deps node installs it)")
		}
		dir := filepath.Join(t.TempDir(), "likes-js")
		if r := runIn(t, filepath.Dir(dir), nil, bin, "init", "--js", dir); r.code != 0 || !strings.Contains(r.stdout, "npm install") {
			t.Fatalf("init --js: %s", r)
		}
		if r := runIn(t, dir, nil, "npm", "install", "--no-audit", "--no-fund"); r.code != 0 {
			t.Fatalf("npm install: %s", r)
		}
		r := runIn(t, dir, nil, bin, "run", "scenario.mjs")
		if r.code != 1 || !strings.Contains(r.stdout, lost) || !strings.Contains(r.stdout, "1 !== 2") {
			t.Fatalf("run scenario.mjs: %s", r)
		}
	})
	t.Run("yaml", func(t *testing.T) {
		tmp := t.TempDir()
		if r := runIn(t, tmp, nil, bin, "init", "--yaml", "likes-yaml"); r.code != 0 || !strings.Contains(r.stdout, "interleave run likes-yaml/scenario.yaml") {
			t.Fatalf("init --yaml: %s", r)
		}
		r := runIn(t, tmp, nil, bin, "run", "likes-yaml/scenario.yaml")
		if r.code != 1 || !strings.Contains(r.stdout, lost) || !strings.Contains(r.stdout, "UPDATE posts SET likes = 1 WHERE id = 1") {
			t.Fatalf("run scenario.yaml: %s", r)
		}
	})
}

// init never overwrites: one existing file makes it refuse before writing
// anything; wrong flag combinations are usage errors; --module-path must
// be a checkout; inside an existing module no go.mod is written.
func TestInitRefusals(t *testing.T) {
	bin := interleaveBinary(t)
	root, _ := filepath.Abs("../..")
	tmp := t.TempDir()
	os.MkdirAll(filepath.Join(tmp, "taken"), 0o755)
	os.WriteFile(filepath.Join(tmp, "taken", "README.md"), []byte("mine\n"), 0o644)
	for _, kind := range [][]string{nil, {"--js"}, {"--yaml"}} {
		r := runIn(t, tmp, nil, bin, append([]string{"init", "taken"}, kind...)...)
		if r.code != 2 || !strings.Contains(r.stderr, "init never overwrites a file, and taken/README.md is already there") {
			t.Fatalf("init %v over README.md: %s", kind, r)
		}
		entries, _ := os.ReadDir(filepath.Join(tmp, "taken"))
		if len(entries) != 1 {
			t.Fatalf("init %v wrote files beside the one that existed: %v", kind, entries)
		}
		if b, _ := os.ReadFile(filepath.Join(tmp, "taken", "README.md")); string(b) != "mine\n" {
			t.Fatalf("README.md was overwritten: %q", b)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"init", "x", "--js", "--yaml"}, "--js and --yaml exclude each other"},
		{[]string{"init", "x", "--module-path", tmp}, "is not a checkout of github.com/pginterleave/interleave"},
		{[]string{"init", "x", "--js", "--module-path", root}, "--module-path is for Go scenarios"},
		{[]string{"init", "x", "y"}, "init takes [DIR]; got 2 arguments"},
	} {
		if r := runIn(t, tmp, nil, bin, c.args...); r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Fatalf("%v: want exit 2 and %q, got %s", c.args, c.want, r)
		}
	}
	r := runIn(t, tmp, nil, bin, "init", "explicit", "--module-path", root)
	if mod, _ := os.ReadFile(filepath.Join(tmp, "explicit", "go.mod")); r.code != 0 || !strings.Contains(string(mod), "=> "+root) {
		t.Fatalf("--module-path: %s\ngo.mod:\n%s", r, mod)
	}
	app := filepath.Join(tmp, "app")
	os.MkdirAll(app, 0o755)
	os.WriteFile(filepath.Join(app, "go.mod"), []byte("module example.com/app\n\ngo 1.25.0\n"), 0o644)
	r = runIn(t, app, nil, bin, "init", "race")
	// This binary is built from a checkout, not a release: no version to
	// require, and no replace the module did not ask for.
	if r.code != 0 || !strings.Contains(r.stdout, "is a package of the module in "+app) || !strings.Contains(r.stdout, "  go mod tidy\n") ||
		strings.Contains(r.stdout, "-replace") || !strings.Contains(r.stdout, "interleave run ./race") {
		t.Fatalf("init inside a module: %s", r)
	}
	if mod, _ := os.ReadFile(filepath.Join(app, "go.mod")); string(mod) != "module example.com/app\n\ngo 1.25.0\n" {
		t.Fatalf("init changed the module's go.mod without a release to require:\n%s", mod)
	}
	if _, err := os.Stat(filepath.Join(app, "race", "go.mod")); err == nil {
		t.Fatal("init wrote a go.mod inside an existing module")
	}
}

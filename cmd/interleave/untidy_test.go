package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// interleave run on a scaffold whose module was never tidied (no go.sum)
// says to run go mod tidy, in one sentence and exit 2, instead of the go
// command's list of missing go.sum entries; a real compile error is still
// shown as the compiler prints it.
func TestRunOnUntidyModuleSaysGoModTidy(t *testing.T) {
	bin := interleaveBinary(t)
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "likes")
	if r := runIn(t, tmp, nil, bin, "init", "likes"); r.code != 0 {
		t.Fatalf("init: %s", r)
	}
	r := runIn(t, dir, []string{"GOFLAGS="}, bin, "run", ".")
	want := "run `go mod tidy` in " + dir + " (it downloads them), then run this again"
	if r.code != 2 || !strings.Contains(r.stderr, want) || strings.Contains(r.stderr, "missing go.sum entry") || strings.Contains(r.stderr, "go get ") {
		t.Fatalf("run before go mod tidy: want exit 2 and %q without the go command's list, got %s", want, r)
	}
	if r := runIn(t, dir, []string{"GOFLAGS=-mod=mod"}, "go", "mod", "tidy"); r.code != 0 {
		t.Fatalf("go mod tidy: %s", r)
	}
	main := filepath.Join(dir, "main.go")
	src, _ := os.ReadFile(main)
	if err := os.WriteFile(main, append(src, []byte("\nfunc broken() { undefinedThing() }\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runIn(t, dir, nil, bin, "run", ".")
	if r.code != 2 || !strings.Contains(r.stderr, "undefined: undefinedThing") || !strings.Contains(r.stderr, "failed (see the compiler output above)") || strings.Contains(r.stderr, "go mod tidy") {
		t.Fatalf("run with a compile error: want exit 2 with the compiler's message, got %s", r)
	}
}

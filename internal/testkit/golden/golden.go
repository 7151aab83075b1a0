// Package golden compares what a test produced with a file kept under the
// package's testdata, and rewrites the file instead when go test runs with
// -update: review the rewrite with git diff and commit it with the change
// that caused it.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
)

var update = flag.Bool("update", false, "rewrite the golden files with what the tests produce")

// Updating reports whether the tests run with -update, for a test that
// rewrites a file of its own kind (a screenshot, a binary capture).
func Updating() bool { return *update }

// TB is the part of *testing.T (or B, F) that Check uses.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// Check compares got with the file at path (relative to the package's
// directory, usually testdata/NAME.golden), or with -update writes got
// there. A difference fails tb, showing both and the command that
// rewrites the file.
func Check(tb TB, path string, got []byte) {
	tb.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatalf("golden: %v", err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			tb.Fatalf("golden: %v", err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		tb.Errorf("%s differs from the golden file; if the change is intended, rewrite it with go test -run '<this test>' -update and review the diff\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

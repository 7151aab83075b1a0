// Package testenv decides what a test does when something it needs from
// the machine is missing (a tool such as tshark, Chromium, node, psycopg2
// or PostgreSQL's isolationtester, or test data kept outside the
// repository): in CI (CI=true) the test fails, elsewhere it is skipped;
// either way the message says exactly what to install. PostgreSQL's server
// binaries are not optional: tests that need them fail without them.
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// TB is the part of *testing.T (or B, F) that this package uses.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Skipf(format string, args ...any)
}

// CI reports whether the tests run in CI, where nothing may be skipped.
func CI() bool { return os.Getenv("CI") == "true" }

// Require fails (CI) or skips tb when err says that what is missing;
// install is the instruction that provides it ("apt-get install -y
// tshark"). It returns only when err is nil.
func Require(tb TB, what string, err error, install string) {
	tb.Helper()
	if err == nil {
		return
	}
	if CI() {
		tb.Fatalf("%s is not available (%v), and CI=true requires it: %s", what, err, install)
	}
	tb.Skipf("skipped: %s is not available (%v); %s, or set CI=true to make this a failure", what, err, install)
}

// Command is the path of the named program on PATH, or Require's verdict
// when there is none.
func Command(tb TB, name, install string) string {
	tb.Helper()
	path, err := exec.LookPath(name)
	Require(tb, name, err, install)
	return path
}

// SharedEnv names the directory that holds the test data kept beside the
// repository, never copied into it: ../shared, with PostgreSQL's isolation
// specs (pg-isolation) and the original JavaScript tool's example
// (seed-example).
const SharedEnv = "INTERLEAVE_SHARED"

// Shared is the directory of the named shared test data ("pg-isolation",
// "seed-example"): under $INTERLEAVE_SHARED, or ../shared beside the
// repository's root (the directory of go.mod above the working directory).
// When one of files (paths inside it) is missing, tb fails in CI and is
// skipped elsewhere, saying where the data is looked for.
func Shared(tb TB, name string, files ...string) string {
	tb.Helper()
	base := os.Getenv(SharedEnv)
	if base == "" {
		base = besideRepository(name)
	}
	dir := filepath.Join(base, name)
	for _, f := range files {
		if !isRegular(filepath.Join(dir, f)) {
			Require(tb, "the shared test data "+name, fmt.Errorf("no %s in %s", f, dir),
				"set "+SharedEnv+" to the directory that holds "+name+" (../shared beside the repository; scripts/test finds it beside the repository a clone came from)")
		}
	}
	return dir
}

// besideRepository is ../shared beside the nearest directory above the
// working directory that has a go.mod and a ../shared/name (the module of
// examples/drivers sits inside the repository), or beside the nearest
// go.mod when there is none (for the message).
func besideRepository(name string) string {
	wd, _ := os.Getwd()
	first := ""
	for dir := wd; ; dir = filepath.Dir(dir) {
		if isRegular(filepath.Join(dir, "go.mod")) {
			shared := filepath.Join(filepath.Dir(dir), "shared")
			if isDir(filepath.Join(shared, name)) {
				return shared
			}
			if first == "" {
				first = shared
			}
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	if first == "" {
		first = filepath.Join(wd, "..", "shared")
	}
	return first
}

func isRegular(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

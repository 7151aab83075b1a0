// Package testenv decides what a test does when something it needs from
// the machine is missing (a tool such as tshark, Chromium, node, psycopg2
// or PostgreSQL's isolationtester, or test data kept outside the
// repository): in CI (CI=true) the test fails, elsewhere it is skipped;
// either way the message says exactly what to install. PostgreSQL's server
// binaries are not optional: tests that need them fail without them.
package testenv

import (
	"os"
	"os/exec"
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

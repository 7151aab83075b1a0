package gostudies_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIExitCodes runs the scenario program cmd/gostudies as a user would
// (its own managed server): GORM's FirstOrCreate exits 1 with the failing
// order, the OnConflict variant exits 0 with every order explored (no
// depth bound; the default partial-order reduction).
func TestCLIExitCodes(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "gostudies")
	build := exec.Command("go", "build", "-o", bin, "./cmd/gostudies")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/gostudies: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		args []string
		exit int
		want string
	}{
		{[]string{"--scenario", "gorm-first-or-create-racy"}, 1, "duplicate key value violates unique constraint \"tags_name_key\""},
		{[]string{"--scenario", "gorm-first-or-create-fixed"}, 0, "frontier exhausted: every order was explored"},
	} {
		args := append([]string{"run"}, tc.args...)
		cmd := exec.Command(bin, args...)
		cmd.Dir = t.TempDir() // the artifact of a failure is written here
		cmd.Env = os.Environ()
		out, err := cmd.CombinedOutput()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tc.exit || !strings.Contains(string(out), tc.want) {
			t.Fatalf("gostudies %s: exit %d, want %d and %q in:\n%s", strings.Join(args, " "), code, tc.exit, tc.want, out)
		}
		t.Logf("gostudies %s: exit %d", strings.Join(args, " "), code)
	}
}

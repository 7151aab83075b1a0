package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/pginterleave/interleave/supervise"
)

// kill -9 of `interleave run` in the middle of a search: the scenario program
// it built learns of it through its lifeline, stops its server and removes
// its directory; the build directory goes too. Nothing is left running or on
// disk, with Linux's extras and on the portable path. kill -9 of the
// scenario program instead: its watchdog stops its server and removes the
// directory, and the CLI removes the build directory.
func TestKill9OfRunLeavesNothingBehind(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "interleave")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	root, _ := filepath.Abs("../..")
	for _, tc := range []struct {
		name     string
		portable bool
		victim   string // "run" or "program"
	}{{"run/linux-extras", false, "run"}, {"run/portable", true, "run"}, {"program/portable", true, "program"}} {
		portable := tc.portable
		t.Run(tc.name, func(t *testing.T) {
			// Short enough for the server's socket path (else it goes to /tmp).
			tmp, err := os.MkdirTemp("", "k9-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(tmp) })
			if err := os.Chmod(tmp, 0o755); err != nil { // the server's account must reach it as root
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "run", "./internal/testkit/testprog/slow", "--keep-going")
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "TEST_DATABASE_URL=", "INTERLEAVE_SUPERVISE=")
			if portable {
				cmd.Env = append(cmd.Env, "INTERLEAVE_SUPERVISE=portable")
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
			var postmaster, program int
			var cluster, build string
			waitFor(t, "the scenario program's server", func() bool {
				pg, _ := filepath.Glob(filepath.Join(tmp, "interleave-pg-*"))
				b, _ := filepath.Glob(filepath.Join(tmp, "interleave-build-*"))
				if len(pg) != 1 || len(b) != 1 {
					return false
				}
				cluster, build = pg[0], b[0]
				pidfile, _ := os.ReadFile(filepath.Join(cluster, "data", "postmaster.pid"))
				postmaster, _ = strconv.Atoi(strings.TrimSpace(strings.SplitN(string(pidfile), "\n", 2)[0]))
				program = childRunning(cmd.Process.Pid, filepath.Join(build, "scenario"))
				return postmaster > 0 && program > 0
			})
			t.Cleanup(func() {
				_ = syscall.Kill(-postmaster, syscall.SIGKILL)
				_ = syscall.Kill(program, syscall.SIGKILL)
			})
			victim := cmd.Process.Pid
			if tc.victim == "program" {
				victim = program // the CLI reports it (exit 2); the program's watchdog cleans up
			}
			if err := syscall.Kill(victim, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			// The CLI received no signal: a scenario program killed under it
			// is a harness error (exit 2), said in a sentence.
			if code := cmd.ProcessState.ExitCode(); tc.victim == "program" && (code != 2 || !strings.Contains(stderr.String(), "the scenario program was killed by signal 9")) {
				t.Errorf("interleave exited %d after its scenario program was killed; want 2 and a message saying so:\n%s", code, stderr.String())
			}
			waitFor(t, "the scenario program to end", func() bool { return !supervise.Alive(program) })
			waitFor(t, "the postmaster to end", func() bool { return !supervise.Alive(postmaster) })
			for _, dir := range []string{cluster, build} {
				waitFor(t, dir+" to be removed", func() bool {
					_, err := os.Stat(dir)
					return os.IsNotExist(err)
				})
			}
			left, _ := filepath.Glob(filepath.Join(tmp, "interleave-*"))
			if len(left) != 0 {
				t.Fatalf("left behind: %v", left)
			}
		})
	}
}

// childRunning is the pid of parent's child running exe, or 0.
func childRunning(parent int, exe string) int {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		status, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		target, _ := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if strings.Contains(string(status), "\nPPid:\t"+strconv.Itoa(parent)+"\n") && target == exe {
			return pid
		}
	}
	return 0
}

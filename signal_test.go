package interleave_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave/internal/testkit/fixture"
	"github.com/pginterleave/interleave/internal/testkit/poll"
)

// buildSlow compiles the long-running scenario program used by signal tests.
func buildSlow(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "slow")
	out, err := exec.Command("go", "build", "-o", bin, "./internal/testkit/testprog/slow").CombinedOutput()
	if err != nil {
		t.Fatalf("build the test scenario program: %v\n%s", err, out)
	}
	return bin
}

// runsSeen counts the actor runs the slow program has started so far (it
// appends a line to $SLOW_RUNS for each; three per attempt).
func runsSeen(path string) int {
	b, _ := os.ReadFile(path)
	return strings.Count(string(b), "\n")
}

// TestSIGINTMidSearchLeavesNothingBehind interrupts a search on the managed
// server and checks the exit code, that the postmaster is gone and that the
// temporary directory was removed.
func TestSIGINTMidSearchLeavesNothingBehind(t *testing.T) {
	bin := buildSlow(t)
	tmp, err := os.MkdirTemp("", "sigtest-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	os.Chmod(tmp, 0o755) // the server's unprivileged account must reach it

	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		runs := filepath.Join(t.TempDir(), "runs")
		cmd := exec.Command(bin, "run", "--keep-going")
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "SLOW_RUNS="+runs)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill() }) // when a check below fails first
		var clusterDir, postmaster string
		poll.Until(t, "the managed server's pid file", func() bool {
			m, _ := filepath.Glob(filepath.Join(tmp, "interleave-pg-*"))
			if len(m) == 1 {
				clusterDir = m[0]
				pidfile, _ := os.ReadFile(filepath.Join(clusterDir, "data", "postmaster.pid"))
				postmaster = strings.TrimSpace(strings.SplitN(string(pidfile), "\n", 2)[0])
				return postmaster != ""
			}
			return false
		})
		// Mid-search: two attempts done, thousands to go.
		poll.Until(t, "the search to start its third attempt", func() bool { return runsSeen(runs) > 6 })
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		code := cmd.ProcessState.ExitCode()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
		if code != 128+int(sig) {
			t.Fatalf("%v: exit code %d (%v), want %d; stderr:\n%s", sig, code, err, 128+int(sig), stderr.String())
		}
		if _, err := os.Stat(clusterDir); !os.IsNotExist(err) {
			t.Fatalf("%v: %s was left behind", sig, clusterDir)
		}
		if out, _ := exec.Command("ps", "-eo", "pid,args").Output(); strings.Contains(string(out), clusterDir) {
			t.Fatalf("%v: a postgres process of %s is still running:\n%s", sig, clusterDir, out)
		}
		if _, err := os.Stat("/proc/" + postmaster); err == nil {
			t.Fatalf("%v: postmaster %s still exists", sig, postmaster)
		}
		if !strings.Contains(stderr.String(), "interrupted") {
			t.Fatalf("%v: stderr does not say the run was interrupted:\n%s", sig, stderr.String())
		}
	}
}

// TestSIGINTOnDedicatedServerDropsItsDatabases interrupts a search that uses
// --database-url and checks that no interleave_ database remains while every
// other database is untouched.
func TestSIGINTOnDedicatedServerDropsItsDatabases(t *testing.T) {
	bin := buildSlow(t)
	ctx := fixture.Context(t)
	admin, err := pgx.Connect(ctx, server.ConnString("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE bystander"); err != nil {
		t.Fatal(err)
	}
	defer admin.Exec(context.Background(), "DROP DATABASE bystander")
	count := func(like string) int {
		var n int
		if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname LIKE $1", like).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	runs := filepath.Join(t.TempDir(), "runs")
	cmd := exec.Command(bin, "run", "--keep-going", "--database-url", server.ConnString("postgres"))
	cmd.Env = append(os.Environ(), "SLOW_RUNS="+runs)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() }) // when a check below fails first
	poll.Until(t, "an attempt database", func() bool { return count("interleave\\_%") > 0 })
	poll.Until(t, "the search to start its third attempt", func() bool { return runsSeen(runs) > 6 })
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Fatalf("exit code %d, want 130", code)
	}
	if n := count("interleave\\_%"); n != 0 {
		t.Fatalf("%d interleave_ databases remain after SIGINT", n)
	}
	if n := count("bystander"); n != 1 {
		t.Fatalf("a database Interleave did not create was touched")
	}
}

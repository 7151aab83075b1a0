package pgserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pginterleave/interleave/supervise"
)

// The managed server never outlives the process that started it: these
// tests start it in a helper process (this test binary again), kill -9 that
// process and poll until the postmaster is gone and its directory removed,
// with Linux's extras and on the portable path (as on macOS).

const serverHelperEnv = "PGSERVER_TEST_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(serverHelperEnv) == "createdb" {
		ext, err := OpenExternal(context.Background(), os.Getenv("PGSERVER_TEST_URL"), nil)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		name, err := ext.CreateDatabase(context.Background())
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		fmt.Println(name)
		for {
			time.Sleep(time.Hour)
		}
	}
	if os.Getenv(serverHelperEnv) == "serve" {
		srv, err := StartLocal(context.Background(), LocalOptions{})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		_ = json.NewEncoder(os.Stdout).Encode(map[string]any{"root": srv.Root(), "postmaster": srv.Pid()})
		for {
			time.Sleep(time.Hour)
		}
	}
	os.Exit(m.Run())
}

type servedBy struct {
	Root       string `json:"root"`
	Postmaster int    `json:"postmaster"`
}

// serveInHelper starts a managed server in a helper process whose temporary
// directory is tmp.
func serveInHelper(t *testing.T, tmp string, portable bool) (*exec.Cmd, servedBy) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), serverHelperEnv+"=serve", "TMPDIR="+tmp, "INTERLEAVE_SUPERVISE=")
	if portable {
		cmd.Env = append(cmd.Env, "INTERLEAVE_SUPERVISE=portable")
	}
	cmd.Stderr = os.Stderr
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var s servedBy
	if err := json.NewDecoder(out).Decode(&s); err != nil {
		_ = cmd.Process.Kill()
		t.Fatalf("the helper started no server: %v", err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-s.Postmaster, syscall.SIGKILL)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd, s
}

// serverTempDir is a temporary directory the server's account can reach
// when the tests run as root.
func serverTempDir(t *testing.T) string {
	tmp := t.TempDir()
	if err := os.Chmod(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	return tmp
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for pause := time.Millisecond; !cond(); pause = min(2*pause, 50*time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(pause)
	}
}

func gone(path string) bool {
	_, err := os.Stat(path)
	return os.IsNotExist(err)
}

func TestKill9OfOwnerStopsServerAndRemovesDirectory(t *testing.T) {
	for _, portable := range []bool{false, true} {
		t.Run(fmt.Sprintf("portable=%v", portable), func(t *testing.T) {
			tmp := serverTempDir(t)
			cmd, s := serveInHelper(t, tmp, portable)
			if !supervise.Alive(s.Postmaster) {
				t.Fatalf("postmaster %d is not running", s.Postmaster)
			}
			_ = cmd.Process.Signal(syscall.SIGKILL)
			_ = cmd.Wait()
			waitUntil(t, "the postmaster to stop", func() bool { return !supervise.Alive(s.Postmaster) })
			waitUntil(t, "its directory to be removed", func() bool { return gone(s.Root) })
		})
	}
}

// With the watchdog killed as well, on the portable path nothing stops the
// server at once; the next run's start of a managed server stops it and
// removes its directory once it is older than supervise.DefaultMinAge.
func TestNextRunSweepsServerLeftByKill9(t *testing.T) {
	tmp := serverTempDir(t)
	cmd, s := serveInHelper(t, tmp, true)
	watchdog := watchdogOf(t, cmd.Process.Pid)
	_ = syscall.Kill(watchdog, syscall.SIGKILL)
	waitUntil(t, "the watchdog to end", func() bool { return !supervise.Alive(watchdog) })
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	if !supervise.Alive(s.Postmaster) || gone(s.Root) {
		t.Fatal("with its owner and the watchdog killed, the server should be left running on the portable path")
	}
	old := time.Now().Add(-2 * supervise.DefaultMinAge)
	if err := os.Chtimes(filepath.Join(s.Root, supervise.RecordFile), old, old); err != nil {
		t.Fatal(err)
	}
	_, next := serveInHelper(t, tmp, true) // the next run
	waitUntil(t, "the leftover postmaster to stop", func() bool { return !supervise.Alive(s.Postmaster) })
	waitUntil(t, "the leftover directory to be removed", func() bool { return gone(s.Root) })
	if !supervise.Alive(next.Postmaster) || gone(next.Root) {
		t.Fatal("the next run's own server is not running")
	}
}

// watchdogOf finds the watchdog a process started: its child whose
// environment says so.
func watchdogOf(t *testing.T, parent int) int {
	t.Helper()
	var pid int
	waitUntil(t, "the watchdog of the helper", func() bool {
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			var p int
			if _, err := fmt.Sscan(e.Name(), &p); err != nil {
				continue
			}
			stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
			env, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
			if containsLine(string(stat), fmt.Sprintf("PPid:\t%d", parent)) && containsNul(string(env), "INTERLEAVE_SUPERVISE_ROLE=watchdog") {
				pid = p
				return true
			}
		}
		return false
	})
	return pid
}

func containsLine(s, line string) bool { return slices.Contains(strings.Split(s, "\n"), line) }

func containsNul(s, entry string) bool { return slices.Contains(strings.Split(s, "\x00"), entry) }

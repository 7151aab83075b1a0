//go:build linux

// Command leftover leaves behind what a run killed with kill -9 together
// with its watchdog leaves: a managed PostgreSQL server still running in its
// directory, a build directory and, when LEFTOVER_DATABASE_URL is set, a
// database on that dedicated server. Run it with INTERLEAVE_SUPERVISE=portable
// (no parent-death signal). It prints what it left as JSON, then kills its
// watchdog and itself. For the tests of `interleave clean` (Linux).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/pginterleave/interleave/pgserver"
	"github.com/pginterleave/interleave/supervise"
)

func main() {
	ctx := context.Background()
	fail := func(err error) { fmt.Fprintln(os.Stderr, err); os.Exit(3) }
	srv, err := pgserver.StartLocal(ctx, pgserver.LocalOptions{})
	if err != nil {
		fail(err)
	}
	build, err := supervise.MkdirTemp("", "interleave-build-")
	if err != nil {
		fail(err)
	}
	left := map[string]any{"root": srv.Root(), "postmaster": srv.Pid(), "build": build}
	if url := os.Getenv("LEFTOVER_DATABASE_URL"); url != "" {
		ext, err := pgserver.OpenExternal(ctx, url, nil)
		if err != nil {
			fail(err)
		}
		if left["database"], err = ext.CreateDatabase(ctx); err != nil {
			fail(err)
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(left); err != nil {
		fail(err)
	}
	for _, pid := range watchdogs() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		for supervise.Alive(pid) {
			time.Sleep(time.Millisecond)
		}
	}
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {}
}

// watchdogs are this process's children whose environment makes them a
// supervise watchdog.
func watchdogs() []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		status, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		env, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if slices.Contains(strings.Split(string(status), "\n"), "PPid:\t"+strconv.Itoa(os.Getpid())) &&
			slices.Contains(strings.Split(string(env), "\x00"), "INTERLEAVE_SUPERVISE_ROLE=watchdog") {
			pids = append(pids, pid)
		}
	}
	return pids
}

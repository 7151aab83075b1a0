//go:build linux

package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Phases of `interleave run DIR` a signal is aimed at.
const (
	phaseBuild  = "build"
	phaseServer = "server start"
	phaseSearch = "search"
)

// phaseReached says whether a run has reached phase. dedicatedPM is the
// dedicated server's postmaster (0 with a managed server).
func phaseReached(phase string, t *tracker, tmpdir string, dedicatedPM int) bool {
	switch phase {
	case phaseBuild:
		return building(t) || exists(filepath.Join(tmpdir, "interleave-build-*"))
	case phaseServer:
		if dedicatedPM > 0 { // no server to start: the program connects
			return programRunning(t)
		}
		return exists(filepath.Join(tmpdir, "interleave-pg-*"))
	default:
		return searching(tmpdir, dedicatedPM)
	}
}

// observedPhase is what the run was doing at the instant it is called.
func observedPhase(t *tracker, tmpdir string, dedicatedPM int) string {
	switch {
	case building(t):
		return phaseBuild
	case searching(tmpdir, dedicatedPM):
		return phaseSearch
	case exists(filepath.Join(tmpdir, "interleave-pg-*")) || programRunning(t):
		return phaseServer
	default:
		return "before the build"
	}
}

func exists(glob string) bool {
	m, _ := filepath.Glob(glob)
	return len(m) > 0
}

// building: the go command or one of its tools is running for the run.
func building(t *tracker) bool {
	for _, p := range t.Running() {
		f := strings.Fields(p.cmdline)
		if len(f) == 0 {
			continue
		}
		switch filepath.Base(f[0]) {
		case "go", "compile", "link", "asm", "cgo", "buildid":
			return true
		}
	}
	return false
}

// programRunning: the scenario program built for the run is running.
func programRunning(t *tracker) bool {
	for _, p := range t.Running() {
		if f := strings.Fields(p.cmdline); len(f) > 0 && filepath.Base(f[0]) == "scenario" && strings.Contains(f[0], "/interleave-build-") {
			return true
		}
	}
	return false
}

// searching: a backend of the run's server (or of the dedicated server)
// serves an interleave_ database: attempts are running.
func searching(tmpdir string, dedicatedPM int) bool {
	pm := dedicatedPM
	if pm == 0 {
		var ok bool
		if pm, _, _, ok = postmasterOf(tmpdir); !ok {
			return false
		}
	}
	for _, p := range allProcs() {
		if p.ppid == pm && strings.HasPrefix(p.cmdline, "postgres: ") && strings.Contains(p.cmdline, " interleave_") {
			return true
		}
	}
	return false
}

// wantExit is the exit status a run must end with after sig.
func wantExit(sig syscall.Signal) int { return 128 + int(sig) }

// signalRun starts `interleave run` on the slow test program (34,650
// orders: it never ends by itself here), waits until it reaches phase,
// waits a further random moment, sends sig to the CLI alone (as `kill`
// does), and judges the exit, the message and what is left. dedicated is
// a dedicated server's URL (and dedicatedPM its postmaster) or empty.
func signalRun(bin, root string, rng *rand.Rand, sig syscall.Signal, phase, dedicated string, dedicatedPM int) runResult {
	tmpdir, err := runTmpdir("soak-b-")
	if err != nil {
		return runResult{Problems: []string{err.Error()}}
	}
	defer os.RemoveAll(tmpdir)
	args := []string{"run", "./internal/testkit/testprog/slow", "--keep-going"}
	if dedicated != "" {
		args = append(args, "--database-url", dedicated)
	}
	r := runResult{Args: args, Signal: sig.String(), Dedicated: dedicated != ""}
	start := time.Now()
	cmd, stdout, stderr, err := startRun(bin, root, tmpdir, args)
	if err != nil {
		r.Problems = append(r.Problems, err.Error())
		return r
	}
	t := track(cmd.Process.Pid, tmpdir)
	done := waitChan(cmd)
	if !waitUntil(3*time.Minute, done, func() bool { return phaseReached(phase, t, tmpdir, dedicatedPM) }) {
		r.Problems = append(r.Problems, "phase "+phase+" not reached")
	}
	extra := map[string]time.Duration{phaseBuild: 300 * time.Millisecond, phaseServer: 700 * time.Millisecond, phaseSearch: 3 * time.Second}[phase]
	time.Sleep(time.Duration(rng.Int64N(int64(extra))))
	r.Phase = observedPhase(t, tmpdir, dedicatedPM)
	select {
	case <-done:
		r.Problems = append(r.Problems, "ended before the signal")
	default:
		_ = syscall.Kill(cmd.Process.Pid, sig)
	}
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		r.Problems = append(r.Problems, fmt.Sprintf("still running 2 minutes after %v", sig))
		_ = cmd.Process.Kill()
		<-done
	}
	r.Duration = time.Since(start)
	r.Exit = exitCode(cmd.ProcessState)
	r.Stdout, r.Stderr = stdout.String(), stderr.String()
	t.Stop()
	r.Left = checkLeftovers(t, tmpdir, dedicated, 90*time.Second)
	if r.Exit != wantExit(sig) {
		r.Problems = append(r.Problems, fmt.Sprintf("exit %d after %v, want %d", r.Exit, sig, wantExit(sig)))
	}
	if sig != syscall.SIGKILL && strings.TrimSpace(r.Stderr) == "" {
		r.Problems = append(r.Problems, fmt.Sprintf("no message on stderr after %v", sig))
	}
	if !r.Left.none() {
		r.Problems = append(r.Problems, "left: "+r.Left.String())
	}
	return r
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

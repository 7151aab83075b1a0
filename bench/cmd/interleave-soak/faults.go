//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// faultScenario is the scenario file of the fault soak: two actors, each
// reading a counter with one psql and writing the sum back with a second
// one in an explicit transaction (so that one actor's UPDATE can wait on
// the other's lock). Every attempt runs four psql processes.
const faultScenario = `name: soak
setup:
  sql: |
    CREATE TABLE counter (id int PRIMARY KEY, n int NOT NULL);
    INSERT INTO counter VALUES (1, 0);
actors:
  - name: alice
    command: [sh, -c, 'n=$(psql -XAt -v ON_ERROR_STOP=1 -c "SELECT n FROM counter WHERE id = 1") && psql -Xq -v ON_ERROR_STOP=1 -c "BEGIN" -c "UPDATE counter SET n = $((n + 1)) WHERE id = 1" -c "COMMIT"']
  - name: bob
    command: [sh, -c, 'n=$(psql -XAt -v ON_ERROR_STOP=1 -c "SELECT n FROM counter WHERE id = 1") && psql -Xq -v ON_ERROR_STOP=1 -c "BEGIN" -c "UPDATE counter SET n = $((n + 1)) WHERE id = 1" -c "COMMIT"']
invariant:
  sql:
    - query: SELECT n FROM counter WHERE id = 1
      expect: [["2"]]
      message: Both increments must be retained
options:
  attempt-timeout: 15s
`

// faultCounts is what the fault loop did during one run.
type faultCounts struct {
	BackendKills  int `json:"backend_kills"`  // SIGTERM to an actor's backend
	ActorKills    int `json:"actor_kills"`    // SIGKILL to an actor's psql
	NoTarget      int `json:"no_target"`      // a fault was due and nothing was there to hit
	PostmasterHit int `json:"postmaster_hit"` // SIGKILL to the postmaster
}

// runResult is one run of the interleave binary, judged.
type runResult struct {
	Args      []string      `json:"args"`
	Exit      int           `json:"exit"`
	Duration  time.Duration `json:"duration"`
	Stdout    string        `json:"stdout"`
	Stderr    string        `json:"stderr"`
	Faults    faultCounts   `json:"faults"`
	Phase     string        `json:"phase,omitempty"`
	Signal    string        `json:"signal,omitempty"`
	Dedicated bool          `json:"dedicated,omitempty"`
	Left      leftovers     `json:"left"`
	Problems  []string      `json:"problems,omitempty"`
}

// writeScenario writes the fault soak's scenario file to a directory of
// its own (not the run's TMPDIR, which must end empty).
func writeScenario() (string, error) {
	dir, err := os.MkdirTemp("", "soak-scenario-")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "soak.yaml")
	return path, os.WriteFile(path, []byte(faultScenario), 0o644)
}

// runTmpdir makes a run's own TMPDIR: short (a server's socket path must
// fit) and reachable by the server's account when running as root.
func runTmpdir(prefix string) (string, error) {
	dir, err := os.MkdirTemp("/tmp", prefix)
	if err != nil {
		return "", err
	}
	return dir, os.Chmod(dir, 0o755)
}

// startRun starts the interleave binary in its own process group with its
// own TMPDIR.
func startRun(bin, dir, tmpdir string, args []string, extraEnv ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer, error) {
	cmd := exec.Command(bin, args...)
	if lim := runLimits.args(); lim != nil {
		// util-linux prlimit sets the limits and executes the command in
		// its own process: the pid tracked is interleave's.
		cmd = exec.Command("prlimit", append(append(lim, "--", bin), args...)...)
	}
	if runLimits.cgroup != "" {
		// The shell joins the memory cgroup and executes the command:
		// interleave and everything it starts (the managed server too)
		// are in it from their first instruction.
		cmd = exec.Command("sh", append([]string{"-c", `echo $$ > "$0/cgroup.procs" && exec "$@"`, runLimits.cgroup}, cmd.Args...)...)
	}
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(append(os.Environ(), "TMPDIR="+tmpdir, "TEST_DATABASE_URL=", "INTERLEAVE_SUPERVISE="), extraEnv...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd, &stdout, &stderr, cmd.Start()
}

// limits are resource limits for every interleave run of the soak (0:
// the soak's own).
type limits struct {
	NoFile  int   // RLIMIT_NOFILE, soft and hard
	Address int64 // RLIMIT_AS in bytes, soft and hard
	Memory  int64 // a memory cgroup's limit in bytes (cgroup v1 or v2)
	cgroup  string
}

// memoryCgroup makes a memory cgroup below the soak's own, limited to
// bytes (swap included where the kernel accounts it), and returns its
// directory and how to remove it.
func memoryCgroup(bytes int64) (string, func(), error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", nil, err
	}
	var base, limitFile, swapFile string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[1] == "memory":
			base, limitFile, swapFile = filepath.Join("/sys/fs/cgroup/memory", parts[2]), "memory.limit_in_bytes", "memory.memsw.limit_in_bytes"
		case parts[0] == "0" && parts[1] == "" && base == "":
			base, limitFile, swapFile = filepath.Join("/sys/fs/cgroup", parts[2]), "memory.max", "memory.swap.max"
		}
	}
	if base == "" {
		return "", nil, fmt.Errorf("no memory cgroup in /proc/self/cgroup")
	}
	dir, err := os.MkdirTemp(base, "interleave-soak-")
	if err != nil {
		return "", nil, fmt.Errorf("make a memory cgroup: %w", err)
	}
	remove := func() {
		// Processes left in it move to the parent before it goes.
		if b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs")); err == nil {
			for _, pid := range strings.Fields(string(b)) {
				_ = os.WriteFile(filepath.Join(base, "cgroup.procs"), []byte(pid), 0o644)
			}
		}
		_ = os.Remove(dir)
	}
	if err := os.WriteFile(filepath.Join(dir, limitFile), []byte(strconv.FormatInt(bytes, 10)), 0o644); err != nil {
		remove()
		return "", nil, fmt.Errorf("limit the memory cgroup: %w", err)
	}
	_ = os.WriteFile(filepath.Join(dir, swapFile), []byte(strconv.FormatInt(bytes, 10)), 0o644) // absent without swap accounting
	return dir, remove, nil
}

var runLimits limits

func (l limits) args() []string {
	var a []string
	if l.NoFile > 0 {
		a = append(a, fmt.Sprintf("--nofile=%d:%d", l.NoFile, l.NoFile))
	}
	if l.Address > 0 {
		a = append(a, fmt.Sprintf("--as=%d:%d", l.Address, l.Address))
	}
	return a
}

// exitCode is the run's exit status as a shell reports it (128+N after
// signal N).
func exitCode(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// postmasterOf reads the postmaster.pid of the managed server in tmpdir:
// its pid, port and socket directory.
func postmasterOf(tmpdir string) (pid, port int, sockdir string, ok bool) {
	files, _ := filepath.Glob(filepath.Join(tmpdir, "interleave-pg-*", "data", "postmaster.pid"))
	if len(files) != 1 {
		return 0, 0, "", false
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		return 0, 0, "", false
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 5 {
		return 0, 0, "", false
	}
	pid, _ = strconv.Atoi(strings.TrimSpace(lines[0]))
	port, _ = strconv.Atoi(strings.TrimSpace(lines[3]))
	return pid, port, strings.TrimSpace(lines[4]), pid > 0 && port > 0
}

// actorBackends is the backends of the run's server that serve an actor:
// processes whose title shows an interleave_ database, that
// pg_stat_activity says are psql's (the harness's own control, monitor and
// barrier connections are left alone: killing them is a fault of the
// harness, not of an actor).
func actorBackends(tmpdir string) []proc {
	pm, port, sockdir, ok := postmasterOf(tmpdir)
	if !ok {
		return nil
	}
	var titled []proc
	user := ""
	for _, p := range allProcs() {
		if p.ppid == pm && strings.HasPrefix(p.cmdline, "postgres: ") && strings.Contains(p.cmdline, " interleave_") {
			titled = append(titled, p)
			if f := strings.Fields(p.cmdline); len(f) > 1 {
				user = f[1]
			}
		}
	}
	if len(titled) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, fmt.Sprintf("host=%s port=%d user=%s dbname=postgres application_name=interleave-soak sslmode=disable", sockdir, port, user))
	if err != nil {
		return nil
	}
	defer c.Close(ctx)
	rows, err := c.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE application_name = 'psql' AND datname LIKE 'interleave\_%'`)
	if err != nil {
		return nil
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return nil
	}
	actor := map[int]bool{}
	for _, pid := range pids {
		actor[int(pid)] = true
	}
	var out []proc
	for _, p := range titled {
		if actor[p.pid] {
			out = append(out, p)
		}
	}
	return out
}

// actorProcesses is the psql processes the run started.
func actorProcesses(t *tracker) []proc {
	var out []proc
	for _, p := range t.Running() {
		if f := strings.Fields(p.cmdline); len(f) > 0 && filepath.Base(f[0]) == "psql" {
			out = append(out, p)
		}
	}
	return out
}

// signalOne sends sig to one of targets chosen at random, if it is still
// the same process.
func signalOne(rng *rand.Rand, targets []proc, sig syscall.Signal) bool {
	for len(targets) > 0 {
		i := rng.IntN(len(targets))
		p := targets[i]
		if alive(p.key()) && syscall.Kill(p.pid, sig) == nil {
			return true
		}
		targets = append(targets[:i], targets[i+1:]...)
	}
	return false
}

// faultLoop kills, at random intervals of minGap to maxGap, a random actor
// backend (SIGTERM, what pg_terminate_backend sends) or a random psql of
// the run (SIGKILL), until stop is closed. A fault that finds no target
// looks again for up to 200 ms (attempts have gaps) before it is counted
// as having none.
func faultLoop(rng *rand.Rand, t *tracker, tmpdir string, minGap, maxGap time.Duration, stop <-chan struct{}) *faultCounts {
	var c faultCounts
	for {
		gap := minGap + time.Duration(rng.Int64N(int64(maxGap-minGap)+1))
		select {
		case <-stop:
			return &c
		case <-time.After(gap):
		}
		backend := rng.IntN(2) == 0
		hit := false
		for deadline := time.Now().Add(200 * time.Millisecond); !hit && time.Now().Before(deadline); {
			if backend {
				hit = signalOne(rng, actorBackends(tmpdir), syscall.SIGTERM)
			} else {
				hit = signalOne(rng, actorProcesses(t), syscall.SIGKILL)
			}
			if !hit {
				time.Sleep(5 * time.Millisecond)
			}
		}
		switch {
		case !hit:
			c.NoTarget++
		case backend:
			c.BackendKills++
		default:
			c.ActorKills++
		}
	}
}

var attemptedRE = regexp.MustCompile(`(\d+) attempted`)

// attempted is the number of attempts a run's summary reports, or -1.
func attempted(stdout string) int {
	m := attemptedRE.FindStringSubmatch(stdout)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// searchFaults is -interleave-faults: the faults the search itself
// injects as choices (interleave run --faults), "" for none.
var searchFaults string

// faultRun is the long search under faults: runs attempts attempts of the
// scenario through the binary while faultLoop kills actors' backends and
// processes, then checks what is left.
func faultRun(bin, scenario string, attempts int, seed uint64, log func(string, ...any)) runResult {
	rng := rand.New(rand.NewPCG(seed, 1))
	tmpdir, err := runTmpdir("soak-a-")
	if err != nil {
		return runResult{Problems: []string{err.Error()}}
	}
	defer os.RemoveAll(tmpdir)
	args := []string{"run", scenario, "--strategy", "random", "--seed", strconv.FormatUint(seed, 10), "--max-runs", strconv.Itoa(attempts), "--keep-going"}
	if searchFaults != "" {
		// The search's own faults beside the soak's kills: fifo, since
		// random draws no faults.
		args = []string{"run", scenario, "--faults", searchFaults, "--max-faults", "1", "--max-runs", strconv.Itoa(attempts), "--keep-going"}
	}
	r := runResult{Args: args}
	start := time.Now()
	cmd, stdout, stderr, err := startRun(bin, filepath.Dir(scenario), tmpdir, args)
	if err != nil {
		r.Problems = append(r.Problems, err.Error())
		return r
	}
	t := track(cmd.Process.Pid, tmpdir)
	stop := make(chan struct{})
	var counts *faultCounts
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		counts = faultLoop(rng, t, tmpdir, 100*time.Millisecond, 1000*time.Millisecond, stop)
	}()
	progress := time.NewTicker(time.Minute)
	done := waitChan(cmd)
wait:
	for {
		select {
		case <-done:
			break wait
		case <-progress.C:
			log("fault soak: %s elapsed", time.Since(start).Round(time.Second))
		}
	}
	progress.Stop()
	close(stop)
	wg.Wait()
	r.Duration = time.Since(start)
	r.Exit = exitCode(cmd.ProcessState)
	r.Stdout, r.Stderr, r.Faults = stdout.String(), stderr.String(), *counts
	t.Stop()
	r.Left = checkLeftovers(t, tmpdir, "", 90*time.Second)
	// A fifo search (the search's own faults) may exhaust its frontier
	// first: the summary then says "pending prefixes: 0".
	if n := attempted(r.Stdout); n != attempts && !(searchFaults != "" && n > 0 && n < attempts && strings.Contains(r.Stdout, "pending prefixes: 0;")) {
		r.Problems = append(r.Problems, fmt.Sprintf("the search ran %d attempts, not %d", n, attempts))
	}
	if r.Exit != 1 && r.Exit != 2 && !(searchFaults != "" && r.Exit == 0) {
		r.Problems = append(r.Problems, fmt.Sprintf("exit %d (want 1 for a violation, or 2 when the first failure is an actor's error)", r.Exit))
	}
	if !r.Left.none() {
		r.Problems = append(r.Problems, "left: "+r.Left.String())
	}
	return r
}

// postmasterRun starts the same search, waits until attempts are running,
// lets it go on for a random 0.5 to 3 s, kills the postmaster with SIGKILL
// and requires exit 2 with "PostgreSQL terminated" on stderr.
func postmasterRun(bin, scenario string, seed uint64) runResult {
	rng := rand.New(rand.NewPCG(seed, 2))
	tmpdir, err := runTmpdir("soak-p-")
	if err != nil {
		return runResult{Problems: []string{err.Error()}}
	}
	defer os.RemoveAll(tmpdir)
	args := []string{"run", scenario, "--strategy", "random", "--max-runs", "10000", "--keep-going"}
	r := runResult{Args: args}
	start := time.Now()
	cmd, stdout, stderr, err := startRun(bin, filepath.Dir(scenario), tmpdir, args)
	if err != nil {
		r.Problems = append(r.Problems, err.Error())
		return r
	}
	t := track(cmd.Process.Pid, tmpdir)
	done := waitChan(cmd)
	if !waitUntil(2*time.Minute, done, func() bool { return len(actorProcesses(t)) > 0 }) {
		r.Problems = append(r.Problems, "no attempt started within 2 minutes")
	} else {
		time.Sleep(500*time.Millisecond + time.Duration(rng.Int64N(int64(2500*time.Millisecond))))
		if pm, _, _, ok := postmasterOf(tmpdir); ok && syscall.Kill(pm, syscall.SIGKILL) == nil {
			r.Faults.PostmasterHit++
		}
	}
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		r.Problems = append(r.Problems, "still running 2 minutes after the postmaster was killed")
		_ = cmd.Process.Kill()
		<-done
	}
	r.Duration = time.Since(start)
	r.Exit = exitCode(cmd.ProcessState)
	r.Stdout, r.Stderr = stdout.String(), stderr.String()
	t.Stop()
	r.Left = checkLeftovers(t, tmpdir, "", 90*time.Second)
	if r.Faults.PostmasterHit == 0 {
		r.Problems = append(r.Problems, "the postmaster was not killed")
	}
	if r.Exit != 2 || !strings.Contains(r.Stderr, "PostgreSQL terminated") {
		r.Problems = append(r.Problems, fmt.Sprintf("exit %d; stderr %q (want exit 2 and \"PostgreSQL terminated\")", r.Exit, short(r.Stderr)))
	}
	if !r.Left.none() {
		r.Problems = append(r.Problems, "left: "+r.Left.String())
	}
	return r
}

// waitChan is closed when cmd has been waited for.
func waitChan(cmd *exec.Cmd) <-chan struct{} {
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	return done
}

// waitUntil polls cond every 10 ms for up to bound; false if the bound
// passed or the run ended first.
func waitUntil(bound time.Duration, done <-chan struct{}, cond func() bool) bool {
	deadline := time.Now().Add(bound)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			return false
		default:
		}
		if cond() {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

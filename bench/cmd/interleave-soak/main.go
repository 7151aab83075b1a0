//go:build linux

package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/pginterleave/interleave/pgserver"
)

// removeCgroup removes the memory cgroup of -memory, if one was made.
var removeCgroup = func() {}

func main() {
	mode := flag.String("mode", "all", "faults, postmaster, signals or all")
	bin := flag.String("bin", "", "the interleave binary (default: built from ./cmd/interleave into a temporary directory)")
	attempts := flag.Int("attempts", 10000, "faults: attempts of the search under faults")
	pmRuns := flag.Int("postmaster-runs", 3, "postmaster: runs whose postmaster is killed")
	runs := flag.Int("runs", 100, "signals: runs killed by a signal")
	dedicatedEvery := flag.Int("dedicated-every", 5, "signals: every Nth run uses a dedicated server (0: none)")
	seed := flag.Uint64("seed", 0, "seed of the fault loop and of the signal plan (0: drawn and printed)")
	jsonOut := flag.String("json", "", "also write every run's result to this file")
	flag.StringVar(&searchFaults, "interleave-faults", "", "faults: also have the search inject these faults (interleave run --faults LIST, fifo with --max-faults 1, as random draws none)")
	flag.IntVar(&runLimits.NoFile, "nofile", 0, "run interleave with this many file descriptors at most (ulimit -n; 0: the soak's own)")
	flag.Int64Var(&runLimits.Address, "address-space", 0, "run interleave with this much address space at most, in bytes (ulimit -v; 0: the soak's own)")
	flag.Int64Var(&runLimits.Memory, "memory", 0, "run interleave, and the server it starts, in a memory cgroup limited to this many bytes (0: none)")
	flag.Parse()
	if runLimits.Memory > 0 {
		dir, remove, err := memoryCgroup(runLimits.Memory)
		if err != nil {
			fail(err)
		}
		defer remove() // and before os.Exit below
		removeCgroup = remove
		runLimits.cgroup = dir
	}
	if runLimits.args() != nil {
		if _, err := exec.LookPath("prlimit"); err != nil {
			fail(fmt.Errorf("-nofile and -address-space need util-linux's prlimit: %w", err))
		}
	}
	if *seed == 0 {
		*seed = rand.Uint64() % 1000000
	}
	logf := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
	}
	logf("seed %d", *seed)
	root, err := moduleRoot()
	if err != nil {
		fail(err)
	}
	if *bin == "" {
		dir, err := os.MkdirTemp("", "soak-bin-")
		if err != nil {
			fail(err)
		}
		defer os.RemoveAll(dir)
		*bin = filepath.Join(dir, "interleave")
		build := exec.Command("go", "build", "-o", *bin, "./cmd/interleave")
		build.Dir, build.Stdout, build.Stderr = root, os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fail(fmt.Errorf("build interleave: %w", err))
		}
	}
	all := map[string][]runResult{}
	problems := 0
	record := func(kind string, r runResult) {
		all[kind] = append(all[kind], r)
		problems += len(r.Problems)
		for _, p := range r.Problems {
			logf("%s: PROBLEM: %s", kind, p)
		}
	}
	if *mode == "faults" || *mode == "all" || *mode == "postmaster" {
		scenario, err := writeScenario()
		if err != nil {
			fail(err)
		}
		defer os.RemoveAll(filepath.Dir(scenario))
		if *mode != "postmaster" {
			logf("fault soak: %d attempts of %s", *attempts, scenario)
			// With the search's own faults the search is fifo, which
			// exhausts its frontier long before 10,000 attempts (the
			// soak's kills make many plans unfollowable): fresh runs
			// follow one another until they have made the attempts.
			for done, run := 0, 0; done < *attempts; run++ {
				r := faultRun(*bin, scenario, *attempts-done, *seed+uint64(run), logf)
				logf("fault soak run %d: exit %d in %s, %d attempts; %+v; %s", run+1, r.Exit, r.Duration.Round(time.Second), attempted(r.Stdout), r.Faults, r.Left)
				record("faults", r)
				if searchFaults == "" || attempted(r.Stdout) <= 0 || len(r.Problems) > 0 {
					break
				}
				done += attempted(r.Stdout)
			}
		}
		if *mode != "faults" {
			for i := 0; i < *pmRuns; i++ {
				r := postmasterRun(*bin, scenario, *seed+uint64(i))
				logf("postmaster %d: exit %d in %s; %s; %s", i+1, r.Exit, r.Duration.Round(time.Millisecond), lastLine(r.Stderr), r.Left)
				record("postmaster", r)
			}
		}
	}
	if *mode == "signals" || *mode == "all" {
		for i, r := range signalRuns(*bin, root, *runs, *dedicatedEvery, *seed, logf) {
			_ = i
			record("signals", r)
		}
	}
	report(all, logf)
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(all, "", "  ")
		if err := os.WriteFile(*jsonOut, b, 0o600); err != nil {
			fail(err)
		}
	}
	if problems > 0 {
		logf("%d problems", problems)
		removeCgroup()
		os.Exit(1)
	}
}

// signalRuns runs the signal soak: signals and phases in equal shares,
// shuffled.
func signalRuns(bin, root string, runs, dedicatedEvery int, seed uint64, logf func(string, ...any)) []runResult {
	rng := rand.New(rand.NewPCG(seed, 3))
	sigs := []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM, syscall.SIGINT}
	phases := []string{phaseBuild, phaseServer, phaseSearch}
	type plan struct {
		sig   syscall.Signal
		phase string
	}
	plans := make([]plan, runs)
	for i := range plans {
		plans[i] = plan{sigs[i%3], phases[(i/3)%3]}
	}
	rng.Shuffle(len(plans), func(i, j int) { plans[i], plans[j] = plans[j], plans[i] })
	var srv *pgserver.Local
	if dedicatedEvery > 0 {
		var err error
		if srv, err = pgserver.StartLocal(context.Background(), pgserver.LocalOptions{}); err != nil {
			fail(fmt.Errorf("start the dedicated server: %w", err))
		}
		defer srv.Close()
	}
	var out []runResult
	for i, p := range plans {
		url, pm := "", 0
		if dedicatedEvery > 0 && i%dedicatedEvery == dedicatedEvery-1 {
			url, pm = srv.ConnString("postgres"), srv.Pid()
		}
		r := signalRun(bin, root, rng, p.sig, p.phase, url, pm)
		logf("signals %d/%d: %v aimed at %s, hit %s%s: exit %d in %s; %q; %s (waited %s)", i+1, runs, p.sig, p.phase, r.Phase,
			map[bool]string{true: " (dedicated server)"}[r.Dedicated], r.Exit, r.Duration.Round(time.Millisecond), lastLine(r.Stderr), r.Left, r.Left.Waited.Round(time.Millisecond))
		out = append(out, r)
	}
	return out
}

// report prints the counts as Markdown.
func report(all map[string][]runResult, logf func(string, ...any)) {
	if rs := all["faults"]; len(rs) > 0 {
		r := rs[0]
		fmt.Printf("## Fault soak: %s\n\n", strings.Join(r.Args, " "))
		fmt.Printf("exit %d after %s; attempts %d; backends killed (SIGTERM) %d; psql killed (SIGKILL) %d; faults with no target %d; left: %s\n\n",
			r.Exit, r.Duration.Round(time.Second), attempted(r.Stdout), r.Faults.BackendKills, r.Faults.ActorKills, r.Faults.NoTarget, r.Left)
		fmt.Printf("summary:\n```\n%s\n```\n\nstderr:\n```\n%s\n```\n\n", strings.TrimSpace(r.Stdout), strings.TrimSpace(r.Stderr))
	}
	if rs := all["postmaster"]; len(rs) > 0 {
		ok := 0
		for _, r := range rs {
			if len(r.Problems) == 0 {
				ok++
			}
		}
		fmt.Printf("## Postmaster killed: %d runs, %d with exit 2, \"PostgreSQL terminated\" and nothing left\n\n", len(rs), ok)
		fmt.Printf("last stderr line of the first: %s\n\n", lastLine(rs[0].Stderr))
	}
	if rs := all["signals"]; len(rs) > 0 {
		type cell struct{ runs, exitOK, msg, procs, dirs, ports, dbs, dedicated int }
		cells := map[string]*cell{}
		var maxWait time.Duration
		for _, r := range rs {
			k := r.Signal + " | " + r.Phase
			c := cells[k]
			if c == nil {
				c = &cell{}
				cells[k] = c
			}
			c.runs++
			if r.Dedicated {
				c.dedicated++
			}
			if r.Exit == 128+int(signalNamed(r.Signal)) {
				c.exitOK++
			}
			if strings.TrimSpace(r.Stderr) != "" {
				c.msg++
			}
			c.procs += len(r.Left.Procs)
			c.dirs += len(r.Left.Dirs)
			c.ports += len(r.Left.Ports)
			c.dbs += len(r.Left.DBs)
			if r.Left.Waited > maxWait {
				maxWait = r.Left.Waited
			}
		}
		keys := make([]string, 0, len(cells))
		for k := range cells {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Printf("## Signals: %d runs (longest wait for cleanup: %s)\n\n", len(rs), maxWait.Round(time.Millisecond))
		fmt.Println("| signal | phase hit | runs | of them dedicated | right exit | message on stderr | processes left | directories left | ports left | databases left |")
		fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
		for _, k := range keys {
			c := cells[k]
			fmt.Printf("| %s | %d | %d | %d | %d | %d | %d | %d | %d |\n", k, c.runs, c.dedicated, c.exitOK, c.msg, c.procs, c.dirs, c.ports, c.dbs)
		}
		fmt.Println()
	}
}

func signalNamed(name string) syscall.Signal {
	for _, s := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM, syscall.SIGINT} {
		if s.String() == name {
			return s
		}
	}
	return 0
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", err
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("run interleave-soak inside the module")
	}
	return filepath.Dir(mod), nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "interleave-soak:", err)
	os.Exit(2)
}

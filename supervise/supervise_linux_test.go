package supervise

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// These tests start real processes: a parent (this test binary again, in a
// helper role) that supervises children, then kill -9 the parent and poll
// until the children are gone. Each runs twice: with Linux's extras
// (Pdeathsig) and on the portable path every platform has (lifeline and
// watchdog only, as on macOS).

const helperRoleEnv = "SUPERVISE_TEST_ROLE"

func TestMain(m *testing.M) {
	switch os.Getenv(helperRoleEnv) {
	case "parent":
		helperParent()
	case "coop":
		helperCooperativeChild()
	default:
		os.Exit(m.Run())
	}
}

// report is what the helper parent tells the test about its children.
type report struct {
	Parent     int    `json:"parent"`
	Watchdog   int    `json:"watchdog"`
	Coop       int    `json:"coop"`
	Shell      int    `json:"shell"`
	Grandchild int    `json:"grandchild"`
	Sleep      int    `json:"sleep"`
	Dir        string `json:"dir"`
}

// helperParent starts a cooperative child (a Go program watching its
// lifeline), a command actor `sh -c 'sleep 1000 & echo $!; wait'` (a shell
// with a child of its own), a plain sleep recorded in a work directory, and
// the work directory, prints their pids, and waits to be killed.
func helperParent() {
	fail := func(err error) { fmt.Fprintln(os.Stderr, err); os.Exit(3) }
	var r report
	r.Parent = os.Getpid()
	dir, err := MkdirTemp(os.Getenv("SUPERVISE_TEST_BASE"), "interleave-test-")
	if err != nil {
		fail(err)
	}
	r.Dir = dir
	// A path registered and then found to be another's (MkdirTemp registers
	// before it creates, and a name can collide): the watchdog must leave it.
	if foreign := os.Getenv("SUPERVISE_TEST_FOREIGN"); foreign != "" {
		if err := theWatchdog.addDir(foreign); err != nil {
			fail(err)
		}
	}

	coop := exec.Command(os.Args[0])
	coop.Env = append(os.Environ(), helperRoleEnv+"=coop")
	coopOut, _ := coop.StdoutPipe()
	Prepare(coop, Cooperative(30*time.Second))
	if err := Start(coop); err != nil {
		fail(err)
	}
	if line, _ := bufio.NewReader(coopOut).ReadString('\n'); line != "watching\n" {
		fail(fmt.Errorf("cooperative child said %q", line))
	}
	r.Coop = coop.Process.Pid

	sh := exec.Command("sh", "-c", "sleep 1000 & echo $!; wait")
	shOut, _ := sh.StdoutPipe()
	Prepare(sh)
	if err := Start(sh); err != nil {
		fail(err)
	}
	line, _ := bufio.NewReader(shOut).ReadString('\n')
	r.Shell = sh.Process.Pid
	r.Grandchild, _ = strconv.Atoi(strings.TrimSpace(line))

	sleep := exec.Command("sleep", "1000")
	Prepare(sleep, StopWith(syscall.SIGTERM, 5*time.Second), InDir(dir))
	if err := Start(sleep); err != nil {
		fail(err)
	}
	r.Sleep = sleep.Process.Pid
	r.Watchdog = theWatchdog.pid
	_ = json.NewEncoder(os.Stdout).Encode(r)
	for {
		time.Sleep(time.Hour)
	}
}

// helperCooperativeChild watches its lifeline like a scenario program and,
// when it breaks, "cleans up" (writes a file the test looks for) and exits.
func helperCooperativeChild() {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	if !NotifyParentExit(sigs) {
		fmt.Println("no lifeline")
		os.Exit(3)
	}
	fmt.Println("watching")
	s := <-sigs
	if err := os.WriteFile(os.Getenv("SUPERVISE_TEST_MARKER"), []byte(s.String()), 0o644); err != nil {
		os.Exit(4)
	}
	os.Exit(129)
}

// startParent runs the helper parent and returns what it reported.
func startParent(t *testing.T, portable bool, base, marker string) (*exec.Cmd, report) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(environWithout("INTERLEAVE_SUPERVISE"), helperRoleEnv+"=parent",
		"SUPERVISE_TEST_BASE="+base, "SUPERVISE_TEST_MARKER="+marker,
		"SUPERVISE_TEST_FOREIGN="+filepath.Join(base, "foreign"))
	if portable {
		cmd.Env = append(cmd.Env, "INTERLEAVE_SUPERVISE=portable")
	}
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var r report
	if err := json.NewDecoder(out).Decode(&r); err != nil {
		_ = cmd.Process.Kill()
		t.Fatalf("the helper parent reported nothing: %v", err)
	}
	t.Cleanup(func() {
		for _, pid := range []int{r.Parent, r.Watchdog, r.Coop, r.Shell, r.Grandchild, r.Sleep} {
			if pid > 0 {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		_ = cmd.Wait()
	})
	return cmd, r
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

func modes() []struct {
	name     string
	portable bool
} {
	return []struct {
		name     string
		portable bool
	}{{"linux-extras", false}, {"portable", true}}
}

func TestKill9OfParentLeavesNoChildRunning(t *testing.T) {
	for _, m := range modes() {
		t.Run(m.name, func(t *testing.T) {
			base := t.TempDir()
			marker := filepath.Join(base, "cooperative-child-cleaned-up")
			foreign := filepath.Join(base, "foreign")
			if err := os.Mkdir(foreign, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := writeRecord(foreign, Record{Version: 1, Owner: Process{PID: os.Getpid()}}); err != nil {
				t.Fatal(err)
			}
			cmd, r := startParent(t, m.portable, base, marker)
			for name, pid := range map[string]int{"cooperative child": r.Coop, "shell": r.Shell, "its sleep": r.Grandchild, "recorded sleep": r.Sleep, "watchdog": r.Watchdog} {
				if pid <= 0 || !Alive(pid) {
					t.Fatalf("%s (pid %d) is not running before the kill", name, pid)
				}
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			for name, pid := range map[string]int{"cooperative child": r.Coop, "shell": r.Shell, "the shell's sleep": r.Grandchild, "recorded sleep": r.Sleep, "watchdog": r.Watchdog} {
				waitUntil(t, name+" to end", func() bool { return !Alive(pid) })
			}
			waitUntil(t, "the work directory to be removed", func() bool {
				_, err := os.Stat(r.Dir)
				return os.IsNotExist(err)
			})
			if _, err := os.Stat(filepath.Join(foreign, RecordFile)); err != nil {
				t.Fatalf("the watchdog removed a registered directory whose record names another process: %v", err)
			}
			// The cooperative child learnt of the death from its lifeline
			// and cleaned up by itself (nothing signalled it).
			b, err := os.ReadFile(marker)
			if err != nil || string(b) != "hangup" {
				t.Fatalf("the cooperative child did not clean up after its lifeline broke: %q, %v", b, err)
			}
		})
	}
}

// When the watchdog dies together with its parent (both kill -9), Linux's
// Pdeathsig still ends the direct children; on the portable path they keep
// running and the directory stays, and the next sweep stops the recorded
// process and removes the directory.
func TestKill9OfParentAndWatchdogIsSweptLater(t *testing.T) {
	for _, m := range modes() {
		t.Run(m.name, func(t *testing.T) {
			base := t.TempDir()
			cmd, r := startParent(t, m.portable, base, filepath.Join(base, "marker"))
			_ = syscall.Kill(r.Watchdog, syscall.SIGKILL)
			waitUntil(t, "the watchdog to end", func() bool { return !Alive(r.Watchdog) })
			_ = cmd.Process.Signal(syscall.SIGKILL)
			_ = cmd.Wait()
			waitUntil(t, "the cooperative child to end through its lifeline", func() bool { return !Alive(r.Coop) })
			if !m.portable {
				waitUntil(t, "Pdeathsig to end the recorded sleep", func() bool { return !Alive(r.Sleep) })
			} else if !Alive(r.Sleep) {
				t.Fatal("on the portable path, with the watchdog dead, nothing should have stopped the recorded sleep yet")
			}
			if _, err := os.Stat(r.Dir); err != nil {
				t.Fatalf("the work directory should be left behind: %v", err)
			}

			// The next run's automatic sweep keeps what is younger than
			// DefaultMinAge ...
			res, err := Sweep(SweepOptions{Dirs: []string{base}, MinAge: DefaultMinAge})
			if err != nil || len(res.Removed) != 0 || len(res.Kept) != 1 || !strings.Contains(res.Kept[0].Reason, "younger") {
				t.Fatalf("sweep of a fresh leftover: %+v, %v", res, err)
			}
			// ... and removes it once it is old enough.
			old := time.Now().Add(-2 * DefaultMinAge)
			if err := os.Chtimes(filepath.Join(r.Dir, RecordFile), old, old); err != nil {
				t.Fatal(err)
			}
			res, err = Sweep(SweepOptions{Dirs: []string{base}, MinAge: DefaultMinAge})
			if err != nil || len(res.Removed) != 1 || res.Removed[0].Path != r.Dir {
				t.Fatalf("sweep of an old leftover: %+v, %v", res, err)
			}
			if _, err := os.Stat(r.Dir); !os.IsNotExist(err) {
				t.Fatalf("the leftover directory is still there: %v", err)
			}
			if Alive(r.Sleep) {
				t.Fatalf("the sweep left the recorded process %d running", r.Sleep)
			}
			if m.portable && (len(res.Removed[0].Stopped) != 1 || res.Removed[0].Stopped[0] != r.Sleep) {
				t.Fatalf("the sweep should report stopping pid %d: %+v", r.Sleep, res.Removed[0])
			}
		})
	}
}

//go:build unix

package supervise

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// roleEnv, set to "watchdog", makes a binary that links this package run as
// the watchdog (see init) instead of its main.
const roleEnv = "INTERLEAVE_SUPERVISE_ROLE"

// parentEnv tells the watchdog its parent's pid (asked with getppid, it
// would be 1 already if the parent died during the helper's start).
const parentEnv = "INTERLEAVE_SUPERVISE_PARENT"

// message is one registration on the control pipe, one JSON line each (far
// below PIPE_BUF, so a write is never split by a parent's death).
type message struct {
	Op     string `json:"op"` // group, release, dir, forget
	PID    int    `json:"pid,omitempty"`
	Signal int    `json:"sig,omitempty"`
	Grace  int64  `json:"grace_ms,omitempty"`
	Path   string `json:"path,omitempty"`
}

// watchdog is the parent's side: the control pipe's write end (never closed
// while this process lives: its closing is the news of our death) and the
// state to replay if the helper has to be started again.
type watchdog struct {
	mu     sync.Mutex
	w      *os.File
	enc    *json.Encoder
	groups map[int]message
	dirs   map[string]bool
	pid    int // the helper's, for tests
}

var theWatchdog = &watchdog{groups: map[int]message{}, dirs: map[string]bool{}}

func (w *watchdog) addGroup(pgid, sig int, grace time.Duration) error {
	return w.send(message{Op: "group", PID: pgid, Signal: sig, Grace: grace.Milliseconds()}, true)
}

func (w *watchdog) releaseGroup(pgid int) {
	_ = w.send(message{Op: "release", PID: pgid}, false)
}

func (w *watchdog) addDir(path string) error {
	return w.send(message{Op: "dir", Path: path}, true)
}

func (w *watchdog) forgetDir(path string) {
	_ = w.send(message{Op: "forget", Path: path}, false)
}

// send records m and tells the helper, starting it when an addition needs
// it (and again if it died: writing then fails with EPIPE).
func (w *watchdog) send(m message, add bool) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch m.Op {
	case "group":
		w.groups[m.PID] = m
	case "release":
		delete(w.groups, m.PID)
	case "dir":
		w.dirs[m.Path] = true
	case "forget":
		delete(w.dirs, m.Path)
	}
	if w.w != nil {
		if err := w.enc.Encode(m); err == nil {
			return nil
		}
		w.w.Close()
		w.w = nil
	}
	if !add {
		return nil
	}
	return w.start()
}

// start runs this binary again as the watchdog, in a session of its own,
// with the control pipe's read end as fd 3, and replays the registrations.
func (w *watchdog) start() error {
	r, wr, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("supervise: create the watchdog's pipe: %w", err)
	}
	defer r.Close()
	cmd := exec.Command(selfExecutable())
	cmd.Env = append(environWithout(lifelineEnv, roleEnv, parentEnv), roleEnv+"=watchdog", parentEnv+"="+strconv.Itoa(os.Getpid()))
	cmd.ExtraFiles = []*os.File{r}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		wr.Close()
		return fmt.Errorf("supervise: start the watchdog: %w", err)
	}
	go func() { _ = cmd.Wait() }() // reap it if it ends before we do
	w.w, w.enc, w.pid = wr, json.NewEncoder(wr), cmd.Process.Pid
	for _, g := range w.groups {
		if err := w.enc.Encode(g); err != nil {
			return fmt.Errorf("supervise: talk to the watchdog: %w", err)
		}
	}
	for d := range w.dirs {
		if err := w.enc.Encode(message{Op: "dir", Path: d}); err != nil {
			return fmt.Errorf("supervise: talk to the watchdog: %w", err)
		}
	}
	return nil
}

// selfExecutable is this binary; on Linux through /proc so that it works
// even when the file has been removed since (a scenario program whose build
// directory is gone).
func selfExecutable() string {
	if runtime.GOOS == "linux" {
		if _, err := os.Stat("/proc/self/exe"); err == nil {
			return "/proc/self/exe"
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return os.Args[0]
	}
	return exe
}

func environWithout(names ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, n := range names {
			drop = drop || k == n
		}
		if !drop {
			env = append(env, kv)
		}
	}
	return env
}

func init() {
	if os.Getenv(roleEnv) == "watchdog" {
		runWatchdog(os.NewFile(3, "watchdog-control"))
		os.Exit(0)
	}
}

// runWatchdog is the helper's whole life: collect registrations until the
// control pipe reports EOF (the parent is gone, however it went), then stop
// every registered group and remove every registered directory.
func runWatchdog(control *os.File) {
	parent, err := strconv.Atoi(os.Getenv(parentEnv))
	if err != nil {
		parent = os.Getppid()
	}
	groups := map[int]message{}
	dirs := map[string]bool{}
	dec := json.NewDecoder(control)
	for {
		var m message
		if err := dec.Decode(&m); err != nil {
			break
		}
		switch m.Op {
		case "group":
			groups[m.PID] = m
		case "release":
			delete(groups, m.PID)
		case "dir":
			dirs[m.Path] = true
		case "forget":
			delete(dirs, m.Path)
		}
	}
	var wg sync.WaitGroup
	for _, g := range groups {
		wg.Add(1)
		go func(g message) {
			defer wg.Done()
			stopGroup(g.PID, syscall.Signal(g.Signal), time.Duration(g.Grace)*time.Millisecond)
		}(g)
	}
	wg.Wait()
	for d := range dirs {
		removeIfOurs(d, parent)
	}
}

// removeIfOurs removes a registered directory only if it is the parent's:
// its owner record names the parent, or it has no record and holds nothing
// but a record being written (MkdirTemp registers a path before it creates
// it, so a path whose creation failed, or that another process owns, must
// be left alone).
func removeIfOurs(dir string, parent int) {
	if rec, err := readRecord(dir, false); err == nil {
		if rec.Owner.PID == parent {
			_ = os.RemoveAll(dir)
		}
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.Name() != RecordFile+".tmp" {
			return
		}
	}
	_ = os.RemoveAll(dir)
}

// stopGroup sends sig (if any) to process group pgid, waits up to grace for
// it to end (a cooperative child stops by itself, with no signal), then
// kills what is left and waits for that too.
func stopGroup(pgid int, sig syscall.Signal, grace time.Duration) {
	if sig != 0 && syscall.Kill(-pgid, sig) != nil {
		return
	}
	if grace > 0 && waitGroupGone(pgid, grace) {
		return
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	waitGroupGone(pgid, 5*time.Second)
}

// waitGroupGone polls until no process of group pgid exists (a zombie still
// counts until its new parent reaps it) or d has passed.
func waitGroupGone(pgid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pause)
	}
}

//go:build linux

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// proc is one process as /proc shows it; (pid, start) names it across pid
// reuse.
type proc struct {
	pid, ppid int
	start     uint64 // clock ticks after boot
	cmdline   string
	tmpdir    string // TMPDIR from its environment, as it started
}

type procKey struct {
	pid   int
	start uint64
}

func (p proc) key() procKey { return procKey{p.pid, p.start} }

// readProc reads one process; ok is false when it is gone (or a thread).
func readProc(pid int) (proc, bool) {
	dir := filepath.Join("/proc", strconv.Itoa(pid))
	stat, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return proc{}, false
	}
	// The command name is in parentheses and may hold spaces: fields
	// start after the last ')'.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return proc{}, false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 20 {
		return proc{}, false
	}
	p := proc{pid: pid}
	p.ppid, _ = strconv.Atoi(f[1])
	p.start, _ = strconv.ParseUint(f[19], 10, 64)
	if f[0] == "Z" {
		// A zombie is dead: its parent has not reaped it yet.
		return proc{}, false
	}
	cmd, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
	p.cmdline = strings.TrimSpace(string(bytes.ReplaceAll(cmd, []byte{0}, []byte{' '})))
	env, _ := os.ReadFile(filepath.Join(dir, "environ"))
	for _, kv := range bytes.Split(env, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte("TMPDIR=")); ok {
			p.tmpdir = string(v)
		}
	}
	return p, true
}

// allProcs is every live process.
func allProcs() map[int]proc {
	out := map[int]proc{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readProc(pid); ok {
			out[pid] = p
		}
	}
	return out
}

// alive says whether the process k names still runs.
func alive(k procKey) bool {
	p, ok := readProc(k.pid)
	return ok && p.start == k.start
}

// tracker follows every process of one run: the descendants of its root
// (even after they are re-parented) and anything started with its TMPDIR.
// It samples /proc until stopped; a process that lives and dies between
// two samples is not seen, which matters only for processes that could not
// be left over anyway.
type tracker struct {
	root   int
	tmpdir string

	mu    sync.Mutex
	procs map[procKey]proc
	ports map[int]procKey // listening TCP ports seen, and the process that held each
	stop  chan struct{}
	done  chan struct{}
}

func track(root int, tmpdir string) *tracker {
	t := &tracker{root: root, tmpdir: tmpdir, procs: map[procKey]proc{}, ports: map[int]procKey{}, stop: make(chan struct{}), done: make(chan struct{})}
	t.sample()
	go func() {
		defer close(t.done)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-t.stop:
				t.sample()
				return
			case <-tick.C:
				t.sample()
			}
		}
	}()
	return t
}

// Stop ends sampling (after one last sample).
func (t *tracker) Stop() {
	close(t.stop)
	<-t.done
}

func (t *tracker) belongs(p proc, all map[int]proc) bool {
	if p.tmpdir == t.tmpdir || strings.Contains(p.cmdline, t.tmpdir+"/") {
		return true
	}
	for q, hops := p, 0; hops < 64; hops++ {
		if q.pid == t.root || q.ppid == t.root {
			return true
		}
		parent, ok := all[q.ppid]
		if !ok {
			return false
		}
		if _, seen := t.procs[parent.key()]; seen {
			return true
		}
		q = parent
	}
	return false
}

func (t *tracker) sample() {
	all := allProcs()
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, p := range all {
		if _, seen := t.procs[p.key()]; !seen && t.belongs(p, all) {
			t.procs[p.key()] = p
		}
	}
	var mine []int
	for _, p := range all {
		if _, ok := t.procs[p.key()]; ok {
			mine = append(mine, p.pid)
		}
	}
	for port, pid := range listeningPorts(mine) {
		t.ports[port] = all[pid].key()
	}
}

// Seen is every process of the run seen so far.
func (t *tracker) Seen() []proc {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]proc, 0, len(t.procs))
	for _, p := range t.procs {
		out = append(out, p)
	}
	return out
}

// Ports is every listening port a process of the run was seen holding.
func (t *tracker) Ports() map[int]procKey {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[int]procKey, len(t.ports))
	for k, v := range t.ports {
		out[k] = v
	}
	return out
}

// Running is the processes of the run alive now, found by ancestry in the
// current process table (for choosing fault targets).
func (t *tracker) Running() []proc {
	all := allProcs()
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []proc
	for _, p := range all {
		if t.belongs(p, all) {
			out = append(out, p)
		}
	}
	return out
}

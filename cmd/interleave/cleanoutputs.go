package main

import (
	"cmp"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/pginterleave/interleave/capture"
	"github.com/pginterleave/interleave/supervise"
)

// outputLeftover is what a kill -9 may leave beside an output: the working
// file of `interleave proxy --capture FILE` (.FILE.partial-*, a capture
// marked partial) or a bundle's staging directory (.DIR.tmp-*) whose owner
// record is gone (the watchdog, which removes one that has its record,
// does not know it).
type outputLeftover struct {
	path, what, reason string // reason: why it is kept ("" removes it)
}

// findOutputLeftovers looks in dirs (not below) for such leftovers: a
// working file no process holds open any more, a staging directory without
// a record untouched for minAge (at least supervise.DefaultMinAge, since
// the record is written just after the directory is made).
func findOutputLeftovers(dirs []string, minAge time.Duration) ([]outputLeftover, error) {
	var out []outputLeftover
	var firstErr error
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("read %s: %w", dir, err)
			}
			continue
		}
		for _, e := range entries {
			name, p := e.Name(), filepath.Join(dir, e.Name())
			switch {
			case strings.HasPrefix(name, ".") && strings.Contains(name, ".partial-") && e.Type().IsRegular():
				if !capture.IsProxyFile(p) {
					continue // not a proxy's working file (they begin as capture files do)
				}
				l := outputLeftover{path: p, what: "a proxy's partial capture (interleave trace reads it)"}
				l.reason = cmp.Or(notMine(p), heldOpen(p))
				out = append(out, l)
			case strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-") && e.IsDir():
				if _, err := os.Lstat(filepath.Join(p, supervise.RecordFile)); err == nil {
					continue // the watchdog's, or supervise.Sweep's
				}
				if _, err := os.Lstat(filepath.Join(p, "artifact.json")); err != nil {
					continue // not a bundle being staged
				}
				l := outputLeftover{path: p, what: "an export's staging directory without its owner record"}
				l.reason = notMine(p)
				if age := max(minAge, supervise.DefaultMinAge); l.reason == "" && newestChange(p).After(time.Now().Add(-age)) {
					l.reason = fmt.Sprintf("changed in the last %v", age)
				}
				out = append(out, l)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out, firstErr
}

// removeOutputLeftovers removes the leftovers not kept, unless dryRun;
// one that cannot be removed is kept, saying why.
func removeOutputLeftovers(ls []outputLeftover, dryRun bool) {
	for i := range ls {
		if ls[i].reason != "" || dryRun {
			continue
		}
		if err := os.RemoveAll(ls[i].path); err != nil {
			ls[i].reason = err.Error()
		}
	}
}

// newestChange is the latest modification time in dir's tree.
func newestChange(dir string) time.Time {
	var t time.Time
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if info, err := d.Info(); err == nil && info.ModTime().After(t) {
			t = info.ModTime()
		}
		return nil
	})
	return t
}

// heldOpen says which process holds path open ("" when none does). Only
// Linux can tell (/proc); elsewhere a working file is kept.
func heldOpen(path string) string {
	if runtime.GOOS != "linux" {
		return "cannot tell on " + runtime.GOOS + " whether the proxy writing it still runs; remove it yourself once it does not"
	}
	want, err := filepath.Abs(path)
	if err != nil {
		return err.Error()
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return "cannot read /proc to tell whether the proxy writing it still runs"
	}
	for _, p := range procs {
		if p.Name()[0] < '0' || p.Name()[0] > '9' {
			continue
		}
		fds, err := os.ReadDir(filepath.Join("/proc", p.Name(), "fd"))
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if target, err := os.Readlink(filepath.Join("/proc", p.Name(), "fd", fd.Name())); err == nil && target == want {
				return "pid " + p.Name() + " holds it open (its proxy still records)"
			}
		}
	}
	return ""
}

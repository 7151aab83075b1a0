package supervise

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"
)

// DefaultMinAge is how old a leftover must be before a run removes it on its
// own (Sweep with MinAge 0 is for `interleave clean`, asked for by the user).
const DefaultMinAge = time.Minute

// SweepOptions say where to look and what to remove.
type SweepOptions struct {
	// Dirs are searched for interleave-* directories; empty means TempDirs().
	Dirs []string
	// MinAge: a leftover whose record changed more recently is kept.
	MinAge time.Duration
	// DryRun reports what would be removed and removes nothing.
	DryRun bool
	// Grace is how long a recorded process has to stop after its stop signal
	// before it is killed; 0 means 5s.
	Grace time.Duration
}

// Leftover is one directory a sweep looked at.
type Leftover struct {
	Path  string
	Owner int // the pid that made it
	// Stopped are recorded processes that were still running and were
	// stopped (or would be, in a dry run).
	Stopped []int
	// Reason says why a directory was kept.
	Reason string
}

// SweepResult lists what was removed (or would be) and what was kept with
// an owner record of its own. Directories without a valid record are not
// listed: they are not Interleave's.
type SweepResult struct {
	Removed []Leftover
	Kept    []Leftover
}

// TempDirs are the directories work directories are made in: the system's
// temporary directory, and /tmp on Unix (where a managed server's directory
// goes when the temporary directory's path is too long for a socket).
func TempDirs() []string {
	dirs := []string{os.TempDir()}
	if runtime.GOOS != "windows" && filepath.Clean(os.TempDir()) != "/tmp" {
		dirs = append(dirs, "/tmp")
	}
	return dirs
}

// Sweep finds the interleave-* directories left by processes that died
// without removing them, and removes them: only when the owner record is
// this user's and was written on this host and PID namespace, its owner is
// dead, and it is older than MinAge. Recorded processes still running are
// stopped first.
func Sweep(opts SweepOptions) (SweepResult, error) {
	var res SweepResult
	dirs := opts.Dirs
	if len(dirs) == 0 {
		dirs = TempDirs()
	}
	if opts.Grace == 0 {
		opts.Grace = 5 * time.Second
	}
	var firstErr error
	for _, base := range dirs {
		entries, err := os.ReadDir(base)
		if err != nil {
			if !os.IsNotExist(err) && firstErr == nil {
				firstErr = fmt.Errorf("read %s: %w", base, err)
			}
			continue
		}
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), "interleave-") || e.Type()&os.ModeType != os.ModeDir {
				continue // not a directory (a symlink is never followed)
			}
			l, keep, ok := judge(filepath.Join(base, e.Name()), opts)
			if !ok {
				continue
			}
			if keep {
				res.Kept = append(res.Kept, l)
				continue
			}
			if !opts.DryRun {
				if err := removeLeftover(&l, opts.Grace); err != nil {
					l.Reason = err.Error()
					res.Kept = append(res.Kept, l)
					continue
				}
			}
			res.Removed = append(res.Removed, l)
		}
	}
	sort.Slice(res.Removed, func(i, j int) bool { return res.Removed[i].Path < res.Removed[j].Path })
	sort.Slice(res.Kept, func(i, j int) bool { return res.Kept[i].Path < res.Kept[j].Path })
	return res, firstErr
}

// judge reads dir's record: ok is false when dir is not Interleave's (no
// valid record of this user's); keep says whether it must stay, and why.
func judge(dir string, opts SweepOptions) (l Leftover, keep, ok bool) {
	rec, err := readRecord(dir, true)
	if err != nil {
		return l, false, false
	}
	l = Leftover{Path: dir, Owner: rec.Owner.PID}
	switch {
	case rec.UID != os.Geteuid():
		l.Reason = fmt.Sprintf("recorded for uid %d", rec.UID)
	case rec.Host != hostname() || rec.Namespace != namespaceID():
		l.Reason = "made on another host or in another PID namespace, where its owner may be alive"
	case isRunning(rec.Owner):
		l.Reason = fmt.Sprintf("its owner, pid %d, is running", rec.Owner.PID)
	}
	if l.Reason != "" {
		return l, true, true
	}
	if st, err := os.Lstat(filepath.Join(dir, RecordFile)); err == nil && time.Since(st.ModTime()) < opts.MinAge {
		l.Reason = fmt.Sprintf("younger than %v", opts.MinAge)
		return l, true, true
	}
	for _, p := range rec.Processes {
		if isRunning(p) {
			l.Stopped = append(l.Stopped, p.PID)
		}
	}
	return l, false, true
}

// removeLeftover stops the recorded processes still running, then removes
// the directory.
func removeLeftover(l *Leftover, grace time.Duration) error {
	rec, err := readRecord(l.Path, true)
	if err != nil {
		return err
	}
	for _, p := range rec.Processes {
		if err := stopProcess(p, grace); err != nil {
			return fmt.Errorf("kept: could not stop pid %d that works in it: %v", p.PID, err)
		}
	}
	if err := os.RemoveAll(l.Path); err != nil {
		return fmt.Errorf("kept: %v", err)
	}
	return nil
}

package supervise

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

// RecordFile is the owner record inside every directory MkdirTemp makes.
const RecordFile = ".interleave-owner.json"

// maxRecordSize bounds what a sweep reads of a record.
const maxRecordSize = 64 << 10

// Record says who owns a work directory and what runs in it.
type Record struct {
	Version int `json:"version"`
	// Host and Namespace (on Linux the PID namespace and the boot id) say
	// where the pids mean something; a sweep elsewhere keeps the directory.
	Host      string `json:"host"`
	Namespace string `json:"namespace,omitempty"`
	// UID is the owner's effective uid (-1 where there is none).
	UID int `json:"uid"`
	// Owner is the process that made the directory.
	Owner Process `json:"owner"`
	// Processes work in the directory (a PostgreSQL server): a sweep stops
	// those still running before it removes the directory.
	Processes []Process `json:"processes,omitempty"`
}

// Process names one process across pid reuse.
type Process struct {
	PID int `json:"pid"`
	// Start is the process's start time as the system reports it (opaque):
	// a live process with this pid and another start time is another
	// process. Empty where the system does not say.
	Start string `json:"start,omitempty"`
	// Stop is the signal a sweep sends first (0: kill at once); the whole
	// process group when Group.
	Stop  int  `json:"stop,omitempty"`
	Group bool `json:"group,omitempty"`
}

var recordMu sync.Mutex

// MkdirTemp is os.MkdirTemp for a work directory: the directory gets an
// owner record naming this process, and it is removed by the watchdog if
// this process dies, or by a later Sweep if the watchdog died too. Remove it
// with RemoveAll.
//
// The watchdog learns of the directory before it exists: a kill -9 in the
// moment after its creation (or during the watchdog's own start, which
// takes a while on a busy machine) cannot leave it behind. The watchdog
// removes only a directory whose record names this process, or an empty
// one (created, the record not yet written).
func MkdirTemp(dir, pattern string) (string, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	for try := 0; ; try++ {
		path := filepath.Join(dir, pattern+strconv.FormatUint(uint64(rand.Uint32()), 10))
		if err := theWatchdog.addDir(path); err != nil {
			return "", err
		}
		err := os.Mkdir(path, 0o700)
		if err != nil {
			theWatchdog.forgetDir(path)
			if os.IsExist(err) && try < 10000 {
				continue
			}
			return "", err
		}
		rec := Record{Version: 1, Host: hostname(), Namespace: namespaceID(), UID: os.Geteuid(), Owner: self()}
		if err := writeRecord(path, rec); err != nil {
			_ = RemoveAll(path)
			return "", fmt.Errorf("write the owner record of %s: %w", path, err)
		}
		return path, nil
	}
}

// RemoveAll removes a directory made by MkdirTemp and takes it off the
// watchdog's list.
func RemoveAll(path string) error {
	theWatchdog.forgetDir(path)
	return os.RemoveAll(path)
}

// track adds a process that works in dir to dir's owner record.
func track(dir string, pid int, stop os.Signal) error {
	recordMu.Lock()
	defer recordMu.Unlock()
	rec, err := readRecord(dir, false)
	if err != nil {
		return err
	}
	rec.Processes = append(rec.Processes, Process{PID: pid, Start: startToken(pid), Stop: signalNumber(stop), Group: groupKill})
	return writeRecord(dir, rec)
}

func self() Process {
	return Process{PID: os.Getpid(), Start: startToken(os.Getpid())}
}

func hostname() string {
	h, _ := os.Hostname()
	return h
}

// writeRecord replaces dir's record atomically.
func writeRecord(dir string, rec Record) error {
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, RecordFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, RecordFile))
}

// readRecord reads dir's record. With trusted, it also requires the file to
// be a regular file this user owns (a record anyone else could have written
// must not make a sweep kill or remove anything).
func readRecord(dir string, trusted bool) (Record, error) {
	var rec Record
	path := filepath.Join(dir, RecordFile)
	st, err := os.Lstat(path)
	if err != nil {
		return rec, err
	}
	if !st.Mode().IsRegular() || st.Size() > maxRecordSize {
		return rec, errors.New("not a regular file of a record's size")
	}
	if trusted && !ownedByMe(st) {
		return rec, errors.New("the record belongs to another user")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return rec, err
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return rec, err
	}
	if rec.Version != 1 || rec.Owner.PID <= 0 {
		return rec, errors.New("not an owner record")
	}
	return rec, nil
}

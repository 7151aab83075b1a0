//go:build unix

package supervise

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// groupKill: on Unix a recorded process leads a process group, and a sweep
// stops the whole group.
const groupKill = true

// isRunning reports whether p still runs: its pid exists (a zombie does not
// count where the system says), and its start time, where both are known,
// is the recorded one.
func isRunning(p Process) bool {
	if p.PID <= 0 {
		return false
	}
	if err := syscall.Kill(p.PID, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	if isZombie(p.PID) {
		return false
	}
	now := startToken(p.PID)
	return p.Start == "" || now == "" || now == p.Start
}

// stopProcess stops a recorded process that still runs: its Stop signal,
// then SIGKILL after grace, to its group when it leads one. It refuses a
// process whose start time cannot be checked: a bare pid may have been
// reused by anyone's process.
func stopProcess(p Process, grace time.Duration) error {
	if !isRunning(p) {
		return nil
	}
	if p.Start == "" || startToken(p.PID) == "" {
		return errors.New("cannot tell whether the recorded process is still the one that was started")
	}
	target := p.PID
	if p.Group {
		target = -p.PID
	}
	if p.Stop != 0 {
		_ = syscall.Kill(target, syscall.Signal(p.Stop))
		if waitStopped(p, grace) {
			return nil
		}
	}
	if err := syscall.Kill(target, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	if !waitStopped(p, 5*time.Second) {
		return errors.New("still running after SIGKILL")
	}
	return nil
}

func waitStopped(p Process, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		if !isRunning(p) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pause)
	}
}

func ownedByMe(st fs.FileInfo) bool {
	s, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(s.Uid) == os.Geteuid()
}

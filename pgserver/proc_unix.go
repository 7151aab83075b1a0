//go:build unix

package pgserver

import (
	"os/exec"
	"syscall"
	"time"
)

// quitSignal is PostgreSQL's immediate shutdown.
var quitSignal = syscall.SIGQUIT

// unixSockets: the managed server is reached over its private socket.
const unixSockets = true

func exe(name string) string { return name }

// checkServerAccount: on Unix root is handled by running the server as an
// unprivileged account (serverAccount).
func checkServerAccount() error { return nil }

// apply makes cmd run as a (nil: unchanged).
func (a *account) apply(cmd *exec.Cmd) {
	if a == nil {
		return
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Credential = &syscall.Credential{Uid: a.Uid, Gid: a.Gid, Groups: []uint32{}}
}

// stop shuts the server down: fast shutdown, then immediate, then kill; the
// postmaster's process group goes with it.
func (l *Local) stop() {
	if l.cmd == nil || l.cmd.Process == nil {
		return
	}
	for _, step := range []struct {
		sig  syscall.Signal
		wait time.Duration
	}{{syscall.SIGINT, 10 * time.Second}, {syscall.SIGQUIT, 5 * time.Second}, {syscall.SIGKILL, 5 * time.Second}} {
		_ = l.cmd.Process.Signal(step.sig)
		select {
		case <-l.exited:
			return // supervise.Wait killed any stragglers of its tree
		case <-time.After(step.wait):
		}
	}
}

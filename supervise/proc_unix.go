//go:build unix

package supervise

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// childSys is a Unix child's kill domain: its process group.
type childSys struct{ pgid int }

// prepareSys puts the child in a process group of its own (so that the
// tree can be killed and a terminal's Ctrl+C reaches only the parent, which
// shuts down in order) and, unless the extras are off, arms Linux's
// parent-death signal. Cooperative children get no parent-death signal:
// they learn of the parent's death from their lifeline and clean up.
func prepareSys(cmd *exec.Cmd, p *policy) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pgid = 0
	if !p.lifeline && !Portable() {
		setParentDeathSignal(cmd.SysProcAttr, p.stop)
	}
}

// superviseStarted registers the child's group with the watchdog.
func superviseStarted(c *child) error {
	c.sys.pgid = c.cmd.Process.Pid
	return theWatchdog.addGroup(c.sys.pgid, signalNumber(c.policy.stop), c.policy.grace)
}

func releaseSys(c *child) {
	if c.sys.pgid != 0 {
		theWatchdog.releaseGroup(c.sys.pgid)
	}
}

func killTree(cmd *exec.Cmd, c *child) error {
	if c != nil || cmd.SysProcAttr != nil && cmd.SysProcAttr.Setpgid {
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if err == nil || !errors.Is(err, syscall.ESRCH) {
			return err
		}
	}
	return cmd.Process.Kill()
}

func signalNumber(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return int(s)
	}
	return 0
}

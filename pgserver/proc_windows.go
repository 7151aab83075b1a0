package pgserver

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/pginterleave/interleave/supervise"
	"golang.org/x/sys/windows"
)

// checkServerAccount: PostgreSQL refuses to start from an elevated
// (Administrator) process; say so in one line instead of relaying its log.
func checkServerAccount() error {
	if windows.GetCurrentProcessToken().IsElevated() {
		return errors.New("PostgreSQL refuses to run with administrative rights, and this is an elevated (Administrator) prompt: run interleave from a normal prompt, or use a dedicated server (Options.Server.DatabaseURL)")
	}
	return nil
}

// quitSignal is only the watchdog's, which Windows does not use (the job
// object kills the server).
var quitSignal os.Signal = os.Kill

// unixSockets: on Windows the managed server is reached over loopback TCP.
const unixSockets = false

func exe(name string) string { return name + ".exe" }

// apply: Windows has no root to step down from (an elevated prompt is
// refused by PostgreSQL itself; see docs/compatibility.md).
func (a *account) apply(*exec.Cmd) {}

// stop asks for a fast shutdown through pg_ctl (Windows has no signals to
// send), then ends the server's job.
func (l *Local) stop() {
	if l.cmd == nil || l.cmd.Process == nil {
		return
	}
	ctl := exec.Command(filepath.Join(l.binDir, exe("pg_ctl")), "stop", "-D", l.dataDir(), "-m", "fast", "-w", "-t", "10")
	ctl.Env = serverEnv()
	_ = supervise.Run(ctl)
	select {
	case <-l.exited:
		return
	case <-time.After(5 * time.Second):
	}
	_ = supervise.KillTree(l.cmd)
	select {
	case <-l.exited:
	case <-time.After(5 * time.Second):
	}
}

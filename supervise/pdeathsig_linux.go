package supervise

import (
	"os"
	"syscall"
)

// setParentDeathSignal is Linux's extra: the kernel sends the child sig
// (SIGKILL by default) the moment the thread that started it ends, without
// waiting for the watchdog. It reaches the child only, not its descendants;
// those are the watchdog's.
func setParentDeathSignal(a *syscall.SysProcAttr, sig os.Signal) {
	a.Pdeathsig = syscall.SIGKILL
	if s, ok := sig.(syscall.Signal); ok {
		a.Pdeathsig = s
	}
}

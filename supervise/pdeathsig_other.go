//go:build unix && !linux

package supervise

import (
	"os"
	"syscall"
)

// setParentDeathSignal does nothing where there is no parent-death signal
// (macOS, the BSDs): the watchdog alone ends the child.
func setParentDeathSignal(*syscall.SysProcAttr, os.Signal) {}

package supervise

import (
	"strconv"

	"golang.org/x/sys/unix"
)

// startToken is the process's start time from the kernel (kern.proc.pid).
func startToken(pid int) string {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || k.Proc.P_pid != int32(pid) {
		return ""
	}
	t := k.Proc.P_starttime
	return strconv.FormatInt(int64(t.Sec), 10) + "." + strconv.FormatInt(int64(t.Usec), 10)
}

func isZombie(pid int) bool {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	return err == nil && k.Proc.P_stat == 5 // SZOMB
}

// namespaceID: macOS has no PID namespaces; the boot time tells boots apart.
func namespaceID() string {
	tv, err := unix.SysctlTimeval("kern.boottime")
	if err != nil {
		return ""
	}
	return "boot:" + strconv.FormatInt(int64(tv.Sec), 10)
}

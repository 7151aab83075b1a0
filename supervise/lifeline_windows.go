package supervise

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/windows"
)

// attachLifeline makes the lifeline's read end inheritable, lists it among
// the handles the child inherits and names it in the environment.
func attachLifeline(cmd *exec.Cmd) error {
	r, err := lifelineReadEnd()
	if err != nil {
		return err
	}
	h := windows.Handle(r.Fd())
	if err := windows.SetHandleInformation(h, windows.HANDLE_FLAG_INHERIT, windows.HANDLE_FLAG_INHERIT); err != nil {
		return err
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.AdditionalInheritedHandles = append(cmd.SysProcAttr.AdditionalInheritedHandles, syscall.Handle(h))
	setEnv(cmd, lifelineEnv, "handle:"+strconv.FormatUint(uint64(h), 10))
	return nil
}

// openInheritedLifeline opens the handle v names if it is a pipe, and stops
// it from being inherited further.
func openInheritedLifeline(v string) *os.File {
	n, err := strconv.ParseUint(strings.TrimPrefix(v, "handle:"), 10, 64)
	if err != nil || !strings.HasPrefix(v, "handle:") {
		return nil
	}
	h := windows.Handle(n)
	if t, err := windows.GetFileType(h); err != nil || t != windows.FILE_TYPE_PIPE {
		return nil
	}
	_ = windows.SetHandleInformation(h, windows.HANDLE_FLAG_INHERIT, 0)
	return os.NewFile(uintptr(h), "lifeline")
}

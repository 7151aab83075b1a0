//go:build unix

package supervise

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// attachLifeline hands the child the lifeline's read end as an extra file
// descriptor and names it in the environment.
func attachLifeline(cmd *exec.Cmd) error {
	r, err := lifelineReadEnd()
	if err != nil {
		return err
	}
	cmd.ExtraFiles = append(cmd.ExtraFiles, r)
	setEnv(cmd, lifelineEnv, "fd:"+strconv.Itoa(2+len(cmd.ExtraFiles)))
	return nil
}

// openInheritedLifeline opens the descriptor v names if it is a pipe, and
// makes it close-on-exec.
func openInheritedLifeline(v string) *os.File {
	n, err := strconv.Atoi(strings.TrimPrefix(v, "fd:"))
	if err != nil || !strings.HasPrefix(v, "fd:") || n < 3 {
		return nil
	}
	var st syscall.Stat_t
	if syscall.Fstat(n, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		return nil
	}
	syscall.CloseOnExec(n)
	return os.NewFile(uintptr(n), "lifeline")
}

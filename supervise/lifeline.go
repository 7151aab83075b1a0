package supervise

import (
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
)

// lifelineEnv names the inherited end of a cooperative child's lifeline:
// "fd:N" on Unix, "handle:N" on Windows.
const lifelineEnv = "INTERLEAVE_LIFELINE"

// lifeline is this process's pipe. The write end is never written and never
// closed: the system closes it when this process ends, and every child
// holding the read end then reads EOF. Both ends are close-on-exec (not
// inheritable) except where a child is handed the read end explicitly.
var lifeline struct {
	once sync.Once
	r, w *os.File
	err  error
}

func lifelineReadEnd() (*os.File, error) {
	lifeline.once.Do(func() { lifeline.r, lifeline.w, lifeline.err = os.Pipe() })
	return lifeline.r, lifeline.err
}

// setEnv returns cmd's environment with name=value, replacing any earlier
// value (cmd.Env nil means this process's environment).
func setEnv(cmd *exec.Cmd, name, value string) {
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k != name {
			out = append(out, kv)
		}
	}
	cmd.Env = append(out, name+"="+value)
}

// NotifyParentExit is a cooperative child's side of the lifeline: if this
// process was started with one (Cooperative), it sends syscall.SIGHUP on c
// once the parent has died, however it died, so that the caller's signal
// handling stops and cleans up as it would for a hangup. It reports whether
// a lifeline is being watched. The variable naming the lifeline is removed
// from the environment and the inherited end is not passed on to this
// process's own children.
func NotifyParentExit(c chan<- os.Signal) bool {
	v, ok := os.LookupEnv(lifelineEnv)
	if !ok {
		return false
	}
	_ = os.Unsetenv(lifelineEnv)
	f := openInheritedLifeline(v)
	if f == nil {
		return false
	}
	go func() {
		var buf [64]byte
		for {
			if _, err := f.Read(buf[:]); err != nil {
				break
			}
		}
		c <- syscall.SIGHUP
	}()
	return true
}

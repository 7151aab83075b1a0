package supervise

import (
	"os"
	"os/exec"
	"strings"
)

// GoWork gives cmd, a go command, a work directory that is removed like
// every directory MkdirTemp makes: by the returned function (call it once
// cmd has ended), by the watchdog if this process dies, by a later sweep if
// the watchdog died too. The go command keeps its compiler and linker
// output in a go-build* directory ($WORK) under GOTMPDIR, or TMPDIR, and
// removes it only when it exits by itself; a go command ended by KillTree,
// the watchdog or Pdeathsig (SIGKILL) leaves that directory behind, so that
// every build stopped by a signal left one in TMPDIR. A GOTMPDIR that is
// already set (in cmd.Env or, with cmd.Env nil, in this process's
// environment) stays where the work directory goes.
func GoWork(cmd *exec.Cmd) (remove func(), err error) {
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	parent := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GOTMPDIR="); ok {
			parent = v // the last one wins, as in exec
		}
	}
	dir, err := MkdirTemp(parent, "interleave-gowork-")
	if err != nil {
		return nil, err
	}
	cmd.Env = append(env, "GOTMPDIR="+dir)
	return func() { _ = RemoveAll(dir) }, nil
}

package supervise

import (
	"errors"
	"os"
	"os/exec"
	"sync"
	"time"
)

// Option changes how a child is supervised.
type Option func(*policy)

// policy is what happens to one child.
type policy struct {
	// stop is sent to the child's tree first when the parent dies (nil: go
	// straight to a kill); after grace whatever is left is killed.
	stop  os.Signal
	grace time.Duration
	// lifeline: the child is a cooperative Go program that watches its
	// lifeline and cleans up by itself; it is killed only after grace.
	lifeline bool
	// dir is a directory made by MkdirTemp that the child works in: the child
	// is recorded there so that a sweep can stop it.
	dir string
}

// StopWith makes sig the first thing a child's tree receives when the parent
// dies (PostgreSQL: SIGQUIT, its immediate shutdown); whatever still runs
// after grace is killed. The default is an immediate kill.
func StopWith(sig os.Signal, grace time.Duration) Option {
	return func(p *policy) { p.stop, p.grace = sig, grace }
}

// Cooperative gives the child a lifeline to watch (see NotifyParentExit):
// when the parent dies the child stops and cleans up by itself, and it is
// killed only if it still runs after grace.
func Cooperative(grace time.Duration) Option {
	return func(p *policy) { p.lifeline, p.grace, p.stop = true, grace, nil }
}

// InDir records the child in dir, a directory made by MkdirTemp, so that a
// later sweep of that directory stops the child if it is still running.
func InDir(dir string) Option {
	return func(p *policy) { p.dir = dir }
}

// child is one prepared or running process.
type child struct {
	cmd    *exec.Cmd
	policy policy
	sys    childSys // platform state: the job object on Windows
	err    error    // a failure while preparing, reported by Start
}

var registry = struct {
	sync.Mutex
	children map[*exec.Cmd]*child
}{children: map[*exec.Cmd]*child{}}

// Prepare sets cmd up to run supervised: in a kill domain of its own, with
// the platform's parent-death extras, a lifeline when Cooperative, and,
// for a command made by exec.CommandContext, cancellation killing the whole
// tree. Call it
// before Start; fields of cmd.SysProcAttr already set (a Credential) are
// kept.
func Prepare(cmd *exec.Cmd, opts ...Option) {
	c := &child{cmd: cmd}
	for _, o := range opts {
		o(&c.policy)
	}
	prepareSys(cmd, &c.policy)
	if c.policy.lifeline {
		c.err = attachLifeline(cmd)
	}
	if cmd.Cancel != nil { // made by exec.CommandContext
		cmd.Cancel = func() error { return KillTree(cmd) }
	}
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = 2 * time.Second
	}
	registry.Lock()
	registry.children[cmd] = c
	registry.Unlock()
}

func lookup(cmd *exec.Cmd) *child {
	registry.Lock()
	defer registry.Unlock()
	return registry.children[cmd]
}

func forget(cmd *exec.Cmd) {
	registry.Lock()
	delete(registry.children, cmd)
	registry.Unlock()
}

// Start starts cmd (prepared with defaults if Prepare was not called) and
// puts it under supervision: the watchdog (Unix) or a job object (Windows)
// ends its tree if this process dies. On error nothing is left running.
func Start(cmd *exec.Cmd) error {
	c := lookup(cmd)
	if c == nil {
		Prepare(cmd)
		c = lookup(cmd)
	}
	if c.err != nil {
		forget(cmd)
		return c.err
	}
	if err := cmd.Start(); err != nil {
		forget(cmd)
		return err
	}
	if err := superviseStarted(c); err != nil {
		_ = KillTree(cmd)
		_ = cmd.Wait()
		forget(cmd)
		return err
	}
	if c.policy.dir != "" {
		// Best effort: the record lets a later sweep stop this process.
		_ = track(c.policy.dir, cmd.Process.Pid, c.policy.stop)
	}
	return nil
}

// Wait waits for cmd, then kills whatever the child left running in its
// tree and takes it off supervision.
func Wait(cmd *exec.Cmd) error {
	err := cmd.Wait()
	release(cmd)
	return err
}

// Run is Start then Wait.
func Run(cmd *exec.Cmd) error {
	if err := Start(cmd); err != nil {
		return err
	}
	return Wait(cmd)
}

// release kills the stragglers of a child that has exited and ends its
// supervision.
func release(cmd *exec.Cmd) {
	c := lookup(cmd)
	_ = KillTree(cmd)
	if c != nil {
		releaseSys(c)
	}
	forget(cmd)
}

// KillTree kills cmd's process and everything it started that is still in
// its kill domain. It is safe to call at any time, also before Start and
// after Wait.
func KillTree(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := killTree(cmd, lookup(cmd))
	if errors.Is(err, os.ErrProcessDone) {
		return nil
	}
	return err
}

// Portable reports whether the platform extras (Linux's Pdeathsig) are off,
// as INTERLEAVE_SUPERVISE=portable asks: only the mechanisms every platform
// has are used.
func Portable() bool { return os.Getenv("INTERLEAVE_SUPERVISE") == "portable" }

// Alive reports whether a process with this pid runs (a zombie does not
// count where the system tells).
func Alive(pid int) bool { return isRunning(Process{PID: pid}) }

package supervise

import (
	"fmt"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// childSys is a Windows child's kill domain: a job object whose only handle
// this process holds.
type childSys struct{ job windows.Handle }

// prepareSys starts the child in a process group of its own, so that a
// console's Ctrl+C reaches only the parent, which shuts down in order.
func prepareSys(cmd *exec.Cmd, p *policy) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= syscall.CREATE_NEW_PROCESS_GROUP
}

// superviseStarted puts the child in a new job object. Unless the child is
// cooperative (it cleans up after its lifeline breaks), the job kills every
// process in it when its last handle closes: when this process dies. A
// process the child starts in the instant before it joins the job escapes
// it; the child has barely begun to run by then.
func superviseStarted(c *child) error {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return fmt.Errorf("supervise: create a job object: %w", err)
	}
	if !c.policy.lifeline {
		var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
		info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
		if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
			uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
			windows.CloseHandle(job)
			return fmt.Errorf("supervise: configure a job object: %w", err)
		}
	}
	proc, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(c.cmd.Process.Pid))
	if err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("supervise: open the child process: %w", err)
	}
	defer windows.CloseHandle(proc)
	if err := windows.AssignProcessToJobObject(job, proc); err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("supervise: put the child in a job object: %w", err)
	}
	c.sys.job = job
	return nil
}

// releaseSys closes the job: what the child left running in it dies with it.
func releaseSys(c *child) {
	if c.sys.job != 0 {
		_ = windows.TerminateJobObject(c.sys.job, 1)
		windows.CloseHandle(c.sys.job)
		c.sys.job = 0
	}
}

func killTree(cmd *exec.Cmd, c *child) error {
	if c != nil && c.sys.job != 0 {
		return windows.TerminateJobObject(c.sys.job, 1)
	}
	return cmd.Process.Kill()
}

// The watchdog is Unix's: on Windows the job objects end the children and a
// later sweep removes the directories.
type watchdogless struct{}

var theWatchdog watchdogless

func (watchdogless) addDir(string) error { return nil }
func (watchdogless) forgetDir(string)    {}

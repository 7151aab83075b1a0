// Package supervise makes sure that no process Interleave starts outlives the
// process that started it, whatever ends that process (an exit, a signal, a
// kill -9), and that whatever a kill -9 still leaves behind is found and
// removed later. Every process the CLI and a scenario program start (go
// build, the scenario program, PostgreSQL, command actors) goes through it.
//
// # One model
//
// Each supervised child is a kill domain of its own: a process group on Unix,
// a job object on Windows. The parent can end the child with everything it
// started (KillTree), and a child that exits normally has its stragglers
// killed (Wait). What happens when the parent dies is the same everywhere:
//
//   - Lifeline. The parent holds the write end of a pipe that it never writes
//     and never closes; the operating system closes it when the parent dies,
//     however it dies. A reader of the other end then reads EOF. This is the
//     mechanism every platform has.
//   - Cooperative children (a scenario program, any Go program that calls
//     NotifyParentExit) inherit the read end (an inherited file descriptor on
//     Unix, an inherited handle on Windows, named by INTERLEAVE_LIFELINE) and
//     treat EOF like SIGHUP: they stop, clean up (their own server, their
//     own temporary directories) and exit.
//   - Children we do not control (PostgreSQL, go build, psql, node, sh) are
//     ended for them. On Unix a watchdog does it: the parent re-executes its
//     own binary as a small helper (in a session of its own, so terminal
//     signals do not reach it) that reads registrations from a control pipe
//     (process groups with the signal that stops each, directories to remove)
//     and, at EOF, signals every registered group, waits for its grace
//     period, kills what is left and removes the directories. On Windows each
//     such child is put in a job object with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
//     whose only handle the parent holds; the system kills the job when the
//     parent dies.
//
// Platform extras, where they exist, act sooner and independently of the
// watchdog: on Linux a non-cooperative child also gets a parent-death signal
// (Pdeathsig). Setting INTERLEAVE_SUPERVISE=portable turns the extras off, so
// that the Linux tests exercise exactly the path macOS takes.
//
// The watchdog is started lazily, once per process, by the first supervised
// child or work directory. It runs from this package's init (when
// INTERLEAVE_SUPERVISE_ROLE=watchdog), so any binary that links the package
// can serve, test binaries included; packages the binary initialises before
// this one run their init in the watchdog too. On Windows there is no
// watchdog: a process started in the instant before its job assignment
// could escape the job, and leftover directories wait for the sweep.
//
// # What a kill -9 can still leave, and the sweep
//
// If the watchdog dies together with its parent (a kill -9 of both, an
// out-of-memory kill, a power cut), directories can be left behind. Every
// directory made by MkdirTemp carries an owner record (the owning process's
// pid and start time, the uid, host and PID namespace, and the processes
// that work in it). Sweep, run by the next managed server start and by
// `interleave clean`, removes a directory only when the record is its own
// (same uid, host and namespace, the record file owned by this user), its
// owner is dead (no such pid, or the pid now belongs to a process that
// started at another time) and it is old enough; it first stops the recorded
// processes that still run with their recorded start time. Directories
// without a valid record are never touched.
//
// # Using it
//
// Replace, at each place a process is started:
//
//	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}  ->  supervise.Prepare(cmd)
//	cmd.Start()                                            ->  supervise.Start(cmd)
//	cmd.Wait()                                             ->  supervise.Wait(cmd)
//	cmd.Run()                                              ->  supervise.Run(cmd)
//	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)        ->  supervise.KillTree(cmd)
//	os.MkdirTemp / os.RemoveAll of a work directory        ->  supervise.MkdirTemp / supervise.RemoveAll
//
// and in a Go program that is started as a cooperative child, after
// signal.Notify: supervise.NotifyParentExit(sigs).
package supervise

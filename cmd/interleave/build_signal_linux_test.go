package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// A signal while `interleave run DIR` builds the scenario program: the go
// command is killed with its tools, and its work directory (go-build*,
// where it keeps compiled packages until it exits by itself) goes too. It
// was left in TMPDIR after every stopped build until go builds got a work
// directory of their own (supervise.GoWork); the fault soak found it.
func TestSignalDuringBuildLeavesNoGoWorkDirectory(t *testing.T) {
	bin := interleaveBinary(t)
	root, _ := filepath.Abs("../..")
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			tmp := t.TempDir()
			cmd := exec.Command(bin, "run", "./internal/testkit/testprog/slow", "--keep-going")
			cmd.Dir = root
			// -a: every package is compiled again, so the build is still
			// running when the signal comes.
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "GOFLAGS=-a", "TEST_DATABASE_URL=")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
			waitFor(t, "the go command's work directory", func() bool {
				direct, _ := filepath.Glob(filepath.Join(tmp, "go-build*"))
				nested, _ := filepath.Glob(filepath.Join(tmp, "*", "go-build*"))
				return len(direct)+len(nested) > 0
			})
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			if code, want := exitStatus(cmd.ProcessState), 128+int(sig); code != want {
				t.Errorf("exit %d after %v, want %d", code, sig, want)
			}
			waitFor(t, "TMPDIR to be empty", func() bool {
				left, _ := os.ReadDir(tmp)
				return len(left) == 0
			})
		})
	}
}

// exitStatus is a process's exit status as a shell reports it (128+N after
// signal N).
func exitStatus(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// A SIGTERM or SIGINT the instant the build directory appears, before the
// go command starts (and before the watchdog may know of the directory):
// the run still ends with 128+N, says why, and leaves nothing. Until the
// program path caught these signals from its start, such a signal ended the
// CLI at once (Go's default action) with no message, leaving the build
// directory to a later sweep; the fault soak hit it twice in 100 runs.
func TestSignalAsTheBuildDirectoryAppears(t *testing.T) {
	bin := interleaveBinary(t)
	root, _ := filepath.Abs("../..")
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			tmp := t.TempDir()
			// inotify sees the directory within microseconds of its
			// creation; polling would mostly come too late.
			fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC)
			if err != nil {
				t.Fatal(err)
			}
			defer syscall.Close(fd)
			if _, err := syscall.InotifyAddWatch(fd, tmp, syscall.IN_CREATE); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "run", "./internal/testkit/testprog/slow", "--keep-going")
			cmd.Dir = root
			var stderr strings.Builder
			cmd.Stderr = &stderr
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "TEST_DATABASE_URL=")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
			buf := make([]byte, 4096)
			for seen := false; !seen; {
				n, err := syscall.Read(fd, buf)
				if err != nil {
					t.Fatal(err)
				}
				for off := 0; off+syscall.SizeofInotifyEvent <= n; {
					ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
					name := strings.TrimRight(string(buf[off+syscall.SizeofInotifyEvent:off+syscall.SizeofInotifyEvent+int(ev.Len)]), "\x00")
					seen = seen || strings.HasPrefix(name, "interleave-build-")
					off += syscall.SizeofInotifyEvent + int(ev.Len)
				}
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			if code, want := exitStatus(cmd.ProcessState), 128+int(sig); code != want {
				t.Errorf("exit %d after %v, want %d", code, sig, want)
			}
			if !strings.Contains(stderr.String(), "interleave: ") {
				t.Errorf("nothing said on stderr after %v: %q", sig, stderr.String())
			}
			waitFor(t, "TMPDIR to be empty", func() bool {
				left, _ := os.ReadDir(tmp)
				return len(left) == 0
			})
		})
	}
}

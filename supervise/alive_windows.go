package supervise

import (
	"errors"
	"io/fs"
	"strconv"
	"time"

	"golang.org/x/sys/windows"
)

// groupKill: Windows has no process groups to kill; a sweep ends the
// recorded process itself.
const groupKill = false

func signalNumber(any) int { return 0 }

// startToken is the process's creation time.
func startToken(pid int) string {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return ""
	}
	defer windows.CloseHandle(h)
	var created, exited, kernel, user windows.Filetime
	if windows.GetProcessTimes(h, &created, &exited, &kernel, &user) != nil {
		return ""
	}
	return strconv.FormatInt(created.Nanoseconds(), 10)
}

func isRunning(p Process) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(p.PID))
	if err != nil {
		return errors.Is(err, windows.ERROR_ACCESS_DENIED)
	}
	defer windows.CloseHandle(h)
	var code uint32
	if windows.GetExitCodeProcess(h, &code) == nil && code != 259 { // STILL_ACTIVE
		return false
	}
	now := startToken(p.PID)
	return p.Start == "" || now == "" || now == p.Start
}

func stopProcess(p Process, grace time.Duration) error {
	if !isRunning(p) {
		return nil
	}
	if p.Start == "" || startToken(p.PID) != p.Start {
		return errors.New("cannot tell whether the recorded process is still the one that was started")
	}
	h, err := windows.OpenProcess(windows.PROCESS_TERMINATE|windows.SYNCHRONIZE, false, uint32(p.PID))
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	if err := windows.TerminateProcess(h, 1); err != nil {
		return err
	}
	_, err = windows.WaitForSingleObject(h, uint32((grace + 5*time.Second).Milliseconds()))
	return err
}

// ownedByMe: Windows has no owner uid on a FileInfo; the temporary
// directory is the user's own.
func ownedByMe(fs.FileInfo) bool { return true }

// namespaceID: pids are per boot; the boot is not recorded.
func namespaceID() string { return "" }

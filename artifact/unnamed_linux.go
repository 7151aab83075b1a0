//go:build linux

package artifact

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// CreateUnnamed opens a file in dir that has no name until LinkUnnamed
// gives it one (Linux's O_TMPFILE): if this process dies first, even by
// kill -9, the kernel frees it and nothing is left to sweep (issue 19
// item 6: report's temporary HTML, 30 MB, was left behind). ok is false
// where the file system or the system does not support it; use a named
// temporary file then.
func CreateUnnamed(dir string) (f *os.File, ok bool) {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, false
	}
	return os.NewFile(uintptr(fd), filepath.Join(dir, "(unnamed)")), true
}

// LinkUnnamed gives f, from CreateUnnamed, the name path. It fails with an
// error satisfying os.IsExist if path exists.
func LinkUnnamed(f *os.File, path string) error {
	err := unix.Linkat(unix.AT_FDCWD, fmt.Sprintf("/proc/self/fd/%d", f.Fd()), unix.AT_FDCWD, path, unix.AT_SYMLINK_FOLLOW)
	if err != nil {
		return &os.LinkError{Op: "link", Old: f.Name(), New: path, Err: err}
	}
	return nil
}

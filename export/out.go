package export

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/supervise"
)

// checkOut says, before any work starts, whether the bundle can be
// published at out: its parent directory must exist (it is never created),
// and out must not exist, be an empty directory, or force must be set. It
// returns out as an absolute path: the go command runs in other
// directories, so a relative path would name another place there.
func checkOut(out string, force bool) (string, error) {
	if out == "" {
		return "", errors.New("name the bundle directory to create (export.Options.Out)")
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return "", err
	}
	parent := filepath.Dir(abs)
	st, err := os.Stat(parent)
	switch {
	case err != nil:
		return "", fmt.Errorf("cannot create the bundle %s: its directory %s does not exist; create it first", out, parent)
	case !st.IsDir():
		return "", fmt.Errorf("cannot create the bundle %s: %s is not a directory", out, parent)
	}
	st, err = os.Lstat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return abs, nil
	}
	if err != nil {
		return "", err
	}
	if st.IsDir() {
		if entries, err := os.ReadDir(abs); err == nil && len(entries) == 0 {
			return abs, nil
		}
	} else if err := artifact.CheckReplaceable(abs); err != nil {
		// --force replaces an old bundle (or a regular file), never a
		// device, fifo or socket.
		return "", err
	}
	if !force {
		return "", fmt.Errorf("%s exists and is not an empty directory; pass export.Options.Force to replace it", out)
	}
	return abs, nil
}

// refuseReplacing refuses a --force that would remove what the bundle is
// made from (--out . in the module, or a directory holding the artifact).
func refuseReplacing(out string, inputs ...string) error {
	for _, in := range inputs {
		if rel, err := filepath.Rel(out, in); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return fmt.Errorf("the bundle directory (export.Options.Out) %s holds %s, which the bundle is made from; choose another directory", out, in)
		}
	}
	return nil
}

// stagingDir makes the directory the bundle is written in, beside out so
// that publishing it is a rename. It is private, and removed if this
// process dies before publishing.
func stagingDir(out string) (string, error) {
	dir, err := supervise.MkdirTemp(filepath.Dir(out), "."+filepath.Base(out)+".tmp-")
	if err != nil {
		return "", fmt.Errorf("cannot create the bundle %s: %w", out, err)
	}
	return dir, nil
}

// dropOwnerRecord removes the owner record from the published bundle: it
// is not part of the bundle (the manifest leaves it out), but it stays in
// the staging directory until the rename, because the watchdog removes
// after a kill -9 only a directory whose record names the dead process. A
// staging directory whose record was dropped before the manifest was
// written outlived its process (issue 19 item 6: 24 MB, even with the
// watchdog alive).
func dropOwnerRecord(out string) error {
	err := os.Remove(filepath.Join(out, supervise.RecordFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// beforePublish, when set (by tests), is called with the staging directory
// just before it is renamed into place.
var beforePublish func(staging string)

// discard removes a staging directory that was not published.
func discard(dir string) { _ = supervise.RemoveAll(dir) }

// publish moves the finished staging directory to out, replacing what is
// there (checkOut allowed it), so that out is either the old contents or
// the whole bundle, never a part of it.
func publish(staging, out string) error {
	var old string
	if _, err := os.Lstat(out); err == nil {
		old = filepath.Join(filepath.Dir(out), "."+filepath.Base(out)+".old-"+filepath.Base(staging))
		if err := os.Rename(out, old); err != nil {
			return fmt.Errorf("replace %s: %w", out, err)
		}
	}
	if err := os.Rename(staging, out); err != nil {
		if old != "" {
			_ = os.Rename(old, out)
		}
		return fmt.Errorf("publish the bundle %s: %w", out, err)
	}
	discard(staging) // the path is gone: this only takes it off the watchdog's list
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}

// makePrivate gives every directory of the tree mode 0700 and every file
// 0600 (0700 when it is executable): a bundle holds the recording's SQL,
// parameters and values.
func makePrivate(root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		mode := fs.FileMode(0o600)
		switch {
		case d.IsDir():
			mode = 0o700
		case !d.Type().IsRegular():
			return fmt.Errorf("%s is not a regular file", path)
		case info.Mode().Perm()&0o100 != 0:
			mode = 0o700
		}
		return os.Chmod(path, mode)
	})
}

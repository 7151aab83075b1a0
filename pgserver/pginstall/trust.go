package pginstall

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// An installed tree runs as the server: whoever can change its files can
// run code as the user who starts it (as root, as the server's account).
// So the cache directory, every directory above it and the tree must be
// owned by this user or root, and writable by nobody else; a directory
// above the cache may be writable by others only with the sticky bit
// (/tmp), which stops them from renaming what they do not own.

// ErrUnsafeDir reports a cache directory that another user owns or can
// write to.
var ErrUnsafeDir = errors.New("unsafe cache directory")

// checkOwned refuses an entry owned by someone other than this user or
// root, or writable by group or others (links are judged by their
// directory: their own mode means nothing).
func checkOwned(path string, info fs.FileInfo) error {
	uid, known := ownerOf(info)
	if known && uid != os.Geteuid() && uid != 0 {
		return fmt.Errorf("%w: %s belongs to uid %d, not to this user (uid %d) or root", errTampered, path, uid, os.Geteuid())
	}
	if known && info.Mode()&fs.ModeSymlink == 0 && info.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%w: %s is writable by other users (mode %v)", errTampered, path, info.Mode().Perm())
	}
	return nil
}

// checkCacheDir checks dir and the directories above it; those that do not
// exist yet are skipped (Install creates them).
func checkCacheDir(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	for d, first := abs, true; ; d, first = filepath.Dir(d), false {
		info, err := os.Stat(d)
		if errors.Is(err, fs.ErrNotExist) && d != filepath.Dir(d) {
			continue
		}
		if err != nil {
			return err
		}
		uid, known := ownerOf(info)
		perm := info.Mode().Perm()
		switch {
		case !known:
		case uid != os.Geteuid() && uid != 0:
			return fmt.Errorf("%w: %s belongs to uid %d, not to this user (uid %d) or root, so its owner could change the PostgreSQL binaries installed below it; install into a directory you own", ErrUnsafeDir, d, uid, os.Geteuid())
		case first && perm&0o022 != 0:
			return fmt.Errorf("%w: %s is writable by other users (mode %v), so they could plant or change PostgreSQL binaries there; remove their write permission (chmod go-w %s) or install into a directory only you can write", ErrUnsafeDir, d, perm, d)
		case !first && perm&0o002 != 0 && info.Mode()&fs.ModeSticky == 0:
			return fmt.Errorf("%w: %s, above the cache directory, is writable by all users without the sticky bit, so anyone could replace the cache directory; install into a directory below a safe one", ErrUnsafeDir, d)
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

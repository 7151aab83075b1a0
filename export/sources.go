package export

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/pginterleave/interleave/artifact"
)

// checkSourcePaths keeps an untrusted artifact's source list inside the
// module: every path must be relative, clean, free of "..", and name a
// regular file whose real location (after symbolic links) is inside the
// module's real root. Export reads each source at root/path and writes it
// at src/path in the bundle, so one path that escapes would read any file
// of the machine into the bundle and write outside it (issue 19 item 2).
func checkSourcePaths(root string, files []artifact.SourceFile) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := checkSourcePath(root, realRoot, f.Path); err != nil {
			return fmt.Errorf("%w: the fingerprint's source %q %s; export reads and writes sources only inside the module %s (the artifact was changed, or not recorded from this module)",
				artifact.ErrInvalid, f.Path, err, root)
		}
	}
	return nil
}

// sourcePathError is why one source path is refused, as the end of a
// sentence that begins with the path.
type sourcePathError string

func (e sourcePathError) Error() string { return string(e) }

func checkSourcePath(root, realRoot, p string) error {
	switch {
	case p == "" || p == ".":
		return sourcePathError("names no file")
	case path.IsAbs(p) || filepath.IsAbs(filepath.FromSlash(p)) || filepath.VolumeName(filepath.FromSlash(p)) != "":
		return sourcePathError("is an absolute path")
	case hasDotDot(p):
		return sourcePathError("contains \"..\"")
	case path.Clean(p) != p || strings.ContainsRune(p, 0):
		return sourcePathError("is not a clean relative path")
	}
	full := filepath.Join(root, filepath.FromSlash(p))
	real, err := filepath.EvalSymlinks(full)
	if err != nil {
		if os.IsNotExist(err) {
			return nil // nothing is read: the hash check says it is missing
		}
		return sourcePathError(fmt.Sprintf("cannot be read: %v", err))
	}
	if !within(realRoot, real) {
		return sourcePathError(fmt.Sprintf("leads outside the module through a symbolic link (to %s)", real))
	}
	st, err := os.Stat(real)
	if err != nil {
		return sourcePathError(fmt.Sprintf("cannot be read: %v", err))
	}
	if !st.Mode().IsRegular() {
		return sourcePathError("is not a regular file")
	}
	return nil
}

// hasDotDot reports whether p has a ".." element (in either separator).
func hasDotDot(p string) bool {
	for _, e := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if e == ".." {
			return true
		}
	}
	return false
}

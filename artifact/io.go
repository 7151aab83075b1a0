package artifact

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// ErrExists is returned when Write would overwrite a file without force.
var ErrExists = errors.New("file exists")

// ErrInvalid wraps every reason an artifact file is rejected.
var ErrInvalid = errors.New("invalid artifact")

// FailureFingerprint identifies a failure across runs: kind and message.
func FailureFingerprint(kind, message string) string {
	sum := sha256.Sum256([]byte(kind + "\x00" + message))
	return hex.EncodeToString(sum[:8])
}

// Encode renders a as indented JSON.
func Encode(a *Artifact) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(a); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Write stores a at path atomically (temporary file, fsync, rename). Without
// force it refuses to replace an existing file. An artifact over
// MaxFileSize loses its wire capture (a.Cut says so); one still over it is
// refused.
func Write(path string, a *Artifact, force bool) error {
	data, err := Encode(a)
	if err != nil {
		return err
	}
	if len(data) > MaxFileSize && a.Capture != nil {
		a.Capture = nil
		a.Cut = append(a.Cut, fmt.Sprintf("the wire capture was not kept: with it the artifact was %d bytes, over the limit of %s", len(data), sizeName(MaxFileSize)))
		if data, err = Encode(a); err != nil {
			return err
		}
	}
	if len(data) > MaxFileSize {
		return fmt.Errorf("the artifact would be %d bytes, over the limit of %s that readers accept; its units hold too much SQL or too many values", len(data), sizeName(MaxFileSize))
	}
	return WriteFileAtomic(path, data, force)
}

// CheckWritable says, before any work starts, whether WriteFileAtomic could
// write path at the end: it refuses an existing file without force, a
// directory, and a parent directory that does not exist (it never creates
// one).
func CheckWritable(path string, force bool) error {
	if st, err := os.Stat(path); err == nil {
		if st.IsDir() {
			return fmt.Errorf("%s is a directory; name a file to write", path)
		}
		if !force {
			return fmt.Errorf("%s: %w; pass Options.Output.Force to overwrite it", path, ErrExists)
		}
	}
	if err := CheckReplaceable(path); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("cannot write %s: its directory %s does not exist; create it first", path, dir)
	}
	if !st.IsDir() {
		return fmt.Errorf("cannot write %s: %s is not a directory", path, dir)
	}
	if f, ok := CreateUnnamed(dir); ok { // writable, and nothing named to remove
		return f.Close()
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".check-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// CheckReplaceable refuses to let a write replace path unless nothing is
// there, or a regular file, or a symbolic link (the rename replaces the
// link itself, never what it points to). --force means "overwrite my old
// output", never "replace a device, a fifo, a socket or a directory": the
// rename would go over any of them (issue 19: /dev/null as root).
func CheckReplaceable(path string) error {
	st, err := os.Lstat(path)
	if err != nil {
		return nil // nothing there (or unreadable: the write says why)
	}
	m := st.Mode()
	switch {
	case m.IsRegular(), m&fs.ModeSymlink != 0:
		return nil
	case m.IsDir():
		return fmt.Errorf("%s is a directory; name a file to write", path)
	}
	return fmt.Errorf("%s is %s, not a regular file; Interleave writes and replaces only regular files (even with Options.Output.Force): name another file", path, fileKind(m))
}

// fileKind names what a non-regular file is.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (fifo)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a special file"
}

// WriteFileAtomic writes data to path through a temporary file in the same
// directory, so that a reader never sees half a file. It replaces only a
// regular file (see CheckReplaceable), and that only with force.
func WriteFileAtomic(path string, data []byte, force bool) error {
	if !force {
		if _, err := os.Lstat(path); err == nil {
			return fmt.Errorf("%s: %w; pass Options.Output.Force to overwrite it", path, ErrExists)
		}
	}
	if err := CheckReplaceable(path); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if f, ok := CreateUnnamed(dir); ok {
		if err := writeUnnamed(f, path, data, force); !errors.Is(err, errNoLink) {
			return err
		}
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if testHookWritten != nil {
		testHookWritten()
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	// Private: an artifact holds SQL, parameters and values of the database.
	if err := os.Chmod(tmp.Name(), 0o600); err != nil {
		return err
	}
	if !force {
		// Link fails if path appeared meanwhile: never overwrite by accident.
		if err := os.Link(tmp.Name(), path); err != nil {
			if os.IsExist(err) {
				return fmt.Errorf("%s: %w; pass Options.Output.Force to overwrite it", path, ErrExists)
			}
			return err
		}
		return nil
	}
	// Checked again just before the rename: what is at path may have
	// changed while the data was written.
	if err := CheckReplaceable(path); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// errNoLink: the unnamed file could not be given a name (no /proc, for
// example); the caller writes a named temporary file instead.
var errNoLink = errors.New("cannot link the unnamed file")

// testHookWritten, when set (by tests), is called once the data is written
// and synced, before the file gets its name.
var testHookWritten func()

// writeUnnamed is WriteFileAtomic through an unnamed file: nothing named
// exists until the data is complete, so a kill -9 while writing leaves
// nothing behind. With force the file is linked to a temporary name and
// renamed over path (a moment, not the whole write).
func writeUnnamed(f *os.File, path string, data []byte, force bool) error {
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	// Private: an artifact holds SQL, parameters and values of the database.
	if err := f.Chmod(0o600); err != nil {
		return err
	}
	if testHookWritten != nil {
		testHookWritten()
	}
	if !force {
		err := LinkUnnamed(f, path)
		switch {
		case err == nil:
			return nil
		case os.IsExist(err):
			return fmt.Errorf("%s: %w; pass Options.Output.Force to overwrite it", path, ErrExists)
		}
		return errNoLink
	}
	tmp := filepath.Join(filepath.Dir(path), fmt.Sprintf(".%s.tmp-%d-%d", filepath.Base(path), os.Getpid(), time.Now().UnixNano()))
	if err := LinkUnnamed(f, tmp); err != nil {
		if os.IsExist(err) {
			return err
		}
		return errNoLink
	}
	defer os.Remove(tmp)
	if err := CheckReplaceable(path); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Read loads and validates an artifact file.
func Read(path string) (*Artifact, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%s: %w: larger than the limit of %s", path, ErrInvalid, sizeName(MaxFileSize))
	}
	a, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// Decode parses and validates artifact JSON from an untrusted source (see
// Validate).
func Decode(data []byte) (*Artifact, error) {
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%w: %d bytes, over the limit of %s", ErrInvalid, len(data), sizeName(MaxFileSize))
	}
	var probe struct {
		SchemaVersion *int `json:"schemaVersion"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("%w: not JSON: %v", ErrInvalid, err)
	}
	if probe.SchemaVersion == nil {
		return nil, fmt.Errorf("%w: no schemaVersion; this is not an Interleave artifact", ErrInvalid)
	}
	if v := *probe.SchemaVersion; v != SchemaVersion && v != 1 {
		return nil, fmt.Errorf("%w: schemaVersion %d; this Interleave reads versions 1 and %d", ErrInvalid, v, SchemaVersion)
	}
	var a Artifact
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	a.SchemaVersion = SchemaVersion // version 1 is read into this one
	if err := Validate(&a); err != nil {
		return nil, err
	}
	return &a, nil
}

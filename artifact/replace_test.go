//go:build linux

package artifact_test

import (
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pginterleave/interleave/artifact"
)

// TestForceReplacesOnlyRegularFiles: --force (WriteFileAtomic and
// CheckWritable with force) never replaces a character device, a fifo or a
// socket (issue 19 item 1: `report --out /dev/full --force` made the
// device a regular file); a regular file is replaced, and a symbolic link
// is replaced itself while what it points to is left alone.
func TestForceReplacesOnlyRegularFiles(t *testing.T) {
	dir := t.TempDir()
	special := map[string]func(path string) error{
		"fifo": func(p string) error { return syscall.Mkfifo(p, 0o600) },
		"socket": func(p string) error {
			l, err := net.Listen("unix", p)
			if err == nil {
				t.Cleanup(func() { l.Close() })
			}
			return err
		},
		"character device": func(p string) error {
			if os.Geteuid() != 0 {
				t.Skip("mknod needs root")
			}
			return syscall.Mknod(p, syscall.S_IFCHR|0o600, int(mkdev(1, 7))) // /dev/full's numbers
		},
	}
	for name, make := range special {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
			if err := make(p); err != nil {
				t.Fatal(err)
			}
			before, _ := os.Lstat(p)
			if err := artifact.CheckWritable(p, true); err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("CheckWritable(%s, force): %v, want a refusal naming it not a regular file", name, err)
			}
			if err := artifact.WriteFileAtomic(p, []byte("x"), true); err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("WriteFileAtomic(%s, force): %v, want a refusal naming it not a regular file", name, err)
			}
			after, err := os.Lstat(p)
			if err != nil || after.Mode() != before.Mode() {
				t.Fatalf("the %s was replaced: mode %v, was %v (%v)", name, modeOf(after), before.Mode(), err)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".*tmp-*")); len(left) > 0 {
				t.Fatalf("temporary files left: %v", left)
			}
		})
	}
	t.Run("regular file and symbolic link", func(t *testing.T) {
		reg := filepath.Join(dir, "old.html")
		os.WriteFile(reg, []byte("old"), 0o600)
		if err := artifact.WriteFileAtomic(reg, []byte("new"), true); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(reg); string(b) != "new" {
			t.Fatalf("regular file holds %q", b)
		}
		target := filepath.Join(dir, "target")
		os.WriteFile(target, []byte("keep"), 0o600)
		link := filepath.Join(dir, "link")
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		if err := artifact.WriteFileAtomic(link, []byte("new"), true); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(target); string(b) != "keep" {
			t.Fatalf("the link's target was written: %q", b)
		}
		if st, _ := os.Lstat(link); !st.Mode().IsRegular() {
			t.Fatalf("the link was not replaced by a regular file: %v", st.Mode())
		}
	})
}

func modeOf(st fs.FileInfo) fs.FileMode {
	if st == nil {
		return 0
	}
	return st.Mode()
}

// mkdev is makedev(3) for Linux.
func mkdev(major, minor uint64) uint64 {
	return (major&0xfff)<<8 | (minor & 0xff) | (major&^0xfff)<<32 | (minor&^0xff)<<12
}

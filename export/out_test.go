//go:build unix

package export

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pginterleave/interleave/supervise"
)

// TestForceReplacesNoSpecialFile: export --force replaces an old bundle
// (a directory) or a regular file at --out, never a fifo (issue 19 item
// 1): checkOut refuses it before any work.
func TestForceReplacesNoSpecialFile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "bundle")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := checkOut(fifo, true); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("checkOut(fifo, force): %v, want a refusal", err)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the fifo is gone: %v", err)
	}
	old := filepath.Join(t.TempDir(), "old")
	os.Mkdir(old, 0o700)
	os.WriteFile(filepath.Join(old, "f"), nil, 0o600)
	if _, err := checkOut(old, true); err != nil {
		t.Fatalf("checkOut(old bundle, force): %v", err)
	}
}

// TestStagingKeepsItsOwnerRecordUntilPublished: the staging directory
// holds its owner record until it is renamed into place, so that the
// watchdog removes it whenever this process dies before (issue 19 item 6:
// the record was dropped before the manifest was written, and a kill -9
// then left the staging directory, 24 MB, to nothing); the published
// bundle has no record and verifies.
func TestStagingKeepsItsOwnerRecordUntilPublished(t *testing.T) {
	tmp := t.TempDir()
	art := filepath.Join(tmp, "failure.json")
	os.WriteFile(art, []byte("{}"), 0o600)
	out := filepath.Join(tmp, "bundle")
	seen := false
	beforePublish = func(staging string) {
		if _, err := os.Stat(filepath.Join(staging, supervise.RecordFile)); err != nil {
			t.Errorf("the staging directory has no owner record before it is published: %v", err)
		}
		seen = true
	}
	defer func() { beforePublish = nil }()
	err := build(out, filepath.Join(tmp, "src"), art, func(dir string) error {
		return os.WriteFile(filepath.Join(dir, "README.md"), []byte("x"), 0o600)
	})
	if err != nil || !seen {
		t.Fatalf("build: %v (hook called: %v)", err, seen)
	}
	if _, err := os.Stat(filepath.Join(out, supervise.RecordFile)); err == nil {
		t.Fatal("the published bundle kept the owner record")
	}
	sums, err := hashTree(out)
	if err != nil || len(sums) != 2 {
		t.Fatalf("the bundle holds %v (%v), want README.md and artifact.json", sums, err)
	}
	manifest, _ := os.ReadFile(filepath.Join(out, ManifestName))
	if strings.Contains(string(manifest), supervise.RecordFile) {
		t.Fatalf("the manifest lists the owner record:\n%s", manifest)
	}
}

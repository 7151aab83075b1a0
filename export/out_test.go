package export

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
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

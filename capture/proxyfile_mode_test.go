//go:build unix

package capture

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pginterleave/interleave/netproxy"
)

// TestProxyFileIsPrivate: the proxy's capture file holds every query and
// result of every client: mode 0600, as the pcapng and every other
// data-bearing output (issue 19 item 5: it was 0644).
func TestProxyFileIsPrivate(t *testing.T) {
	path, _ := writeProxyCapture(t, 0, nil)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if m := st.Mode().Perm(); m != 0o600 {
		t.Fatalf("the capture file has mode %v, want 0600", m)
	}
}

// TestProxyFileReplacesOnlyRegularFiles: the capture file is renamed into
// place only over nothing or a regular file, never over a fifo (issue 19
// item 1, for `interleave proxy --capture FILE --force`).
func TestProxyFileReplacesOnlyRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := NewProxyWriter(fifo, ProxyHeader{}, ProxyWriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Bytes(0, netproxy.ClientToServer, []byte("\x00\x00\x00\x08\x04\xd2\x16\x2f"))
	if _, err := w.Close(); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("Close over a fifo: %v, want a refusal", err)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the fifo was replaced: %v %v", st.Mode(), err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
		t.Fatalf("files left beside it: %v", left)
	}
}

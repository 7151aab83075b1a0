package capture

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pginterleave/interleave/netproxy"
)

// copyFile copies the working file as a kill -9 leaves it.
func copyFile(t *testing.T, from, to string, cut int64) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	st, _ := in.Stat()
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if _, err := io.CopyN(out, in, st.Size()-cut); err != nil {
		t.Fatal(err)
	}
}

// TestProxyCaptureSurvivesKill9: while the proxy runs, its working file is
// a partial capture that trace reads, flushed at least every FlushEvery:
// a kill -9 (here, the file copied while the writer still runs) keeps
// every record up to the last flush, and a frame cut short by the kill
// loses only its own records (issue 19 item 5: the working file was still
// empty after 40 sessions, and unreadable).
func TestProxyCaptureSurvivesKill9(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "app.capture")
	w, err := NewProxyWriter(path, ProxyHeader{Listen: "127.0.0.1:6432", Upstream: "127.0.0.1:5432"}, ProxyWriterOptions{FlushEvery: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	w.Bytes(0, netproxy.ClientToServer, []byte("\x00\x00\x00\x12\x00\x03\x00\x00user\x00bob\x00\x00"))
	w.Bytes(0, netproxy.ServerToClient, []byte("R\x00\x00\x00\x08\x00\x00\x00\x00Z\x00\x00\x00\x05I"))
	query := func() {
		w.Bytes(0, netproxy.ClientToServer, []byte("Q\x00\x00\x00\x0dselect 1\x00"))
		w.Bytes(0, netproxy.ServerToClient, []byte("C\x00\x00\x00\x0dSELECT 1\x00Z\x00\x00\x00\x05I"))
	}
	query()
	killed := filepath.Join(dir, "killed.capture")
	deadline := time.Now().Add(10 * time.Second)
	var records int
	for records < 4 && time.Now().Before(deadline) {
		time.Sleep(30 * time.Millisecond)
		copyFile(t, w.WorkingFile(), killed, 0)
		if h, raw, err := ReadProxyFile(killed); err == nil && h.Partial {
			recs, _ := Decode(raw)
			records = len(recs)
		}
	}
	if records != 4 {
		t.Fatalf("the working file holds %d records after the flush, want 4", records)
	}
	pt, _, err := TraceProxyFile(killed)
	if err != nil || len(pt.Summary) != 1 || pt.Summary[0].Statements != 1 {
		t.Fatalf("trace of the working file: %v %+v", err, pt)
	}
	// A second flush, then the kill cuts its frame short: the first
	// frame's records are still read.
	query()
	time.Sleep(200 * time.Millisecond)
	copyFile(t, w.WorkingFile(), killed, 3)
	h, raw, err := ReadProxyFile(killed)
	if err != nil || !h.Partial {
		t.Fatalf("the cut working file: %v", err)
	}
	if recs, err := Decode(raw); err != nil || len(recs) < 4 {
		t.Fatalf("the cut working file holds %d records (%v), want the 4 of its first frame", len(recs), err)
	}
	working := w.WorkingFile()
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(working); err == nil {
		t.Fatal("the working file is left after Close")
	}
	h, raw, err = ReadProxyFile(path)
	if recs, _ := Decode(raw); err != nil || h.Partial || len(recs) != 6 {
		t.Fatalf("the capture file: %d records, partial %v, %v", len(recs), h != nil && h.Partial, err)
	}
}

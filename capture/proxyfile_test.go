package capture

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pginterleave/interleave/netproxy"
)

// writeProxyCapture records a small session through a ProxyWriter.
func writeProxyCapture(t *testing.T, budget int64, onDrop func(Dropped)) (string, *ProxyHeader) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "x.capture")
	w, err := NewProxyWriter(path, ProxyHeader{Listen: "127.0.0.1:6432", Upstream: "127.0.0.1:5432"}, ProxyWriterOptions{Budget: budget, OnDrop: onDrop})
	if err != nil {
		t.Fatal(err)
	}
	startup := []byte("\x00\x00\x00\x12\x00\x03\x00\x00user\x00bob\x00\x00")
	w.Bytes(0, netproxy.ClientToServer, startup)
	w.Redacted(0, netproxy.ClientToServer, []byte("p\x00\x00\x00\x29"), 42, "authentication response")
	w.Bytes(0, netproxy.ServerToClient, []byte("R\x00\x00\x00\x08\x00\x00\x00\x00Z\x00\x00\x00\x05I"))
	for i := 0; i < 2000; i++ {
		w.Bytes(0, netproxy.ClientToServer, []byte("Q\x00\x00\x00\x0dselect 1\x00"))
		w.Bytes(0, netproxy.ServerToClient, []byte("C\x00\x00\x00\x0dSELECT 1\x00Z\x00\x00\x00\x05I"))
	}
	w.Closed(0, errors.New("gone"))
	h, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	return path, h
}

func TestProxyFileRoundTrip(t *testing.T) {
	path, h := writeProxyCapture(t, 0, nil)
	if !IsProxyFile(path) {
		t.Fatal("IsProxyFile does not recognise the file")
	}
	got, raw, err := ReadProxyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.SHA256 != h.SHA256 || int64(len(raw)) != h.Size || got.Dropped != nil || got.Streams != 1 || got.Budget != DefaultCaptureBudget {
		t.Fatalf("header %+v", got)
	}
	pt, _, err := TraceProxyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := pt.Summary[0]
	if s.Statements != 2000 || s.StatementKinds["SELECT"] != 2000 || s.RoundTrips != 2000 || strings.Join(s.Protocol, "+") != "simple" {
		t.Fatalf("summary %+v", s)
	}
	var text bytes.Buffer
	if err := pt.WriteText(&text, path); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "client conn #0") || strings.Contains(text.String(), "release unit") {
		t.Errorf("text:\n%.600s", text.String())
	}
	// Nothing left beside the file.
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("%d files beside the capture, want none", len(entries)-1)
	}
}

func TestProxyFileBudget(t *testing.T) {
	var told []Dropped
	dropped := make(chan Dropped, 1)
	path, h := writeProxyCapture(t, 4096, func(d Dropped) { dropped <- d })
	told = append(told, <-dropped)
	if h.Dropped == nil || h.Dropped.Records == 0 || h.Dropped.Streams != 1 || !strings.Contains(h.Dropped.Reason, "budget of 4096 bytes") {
		t.Fatalf("dropped %+v", h.Dropped)
	}
	if h.Size > 4096+64 || told[0].Reason != h.Dropped.Reason {
		t.Fatalf("size %d over the budget, or OnDrop said %+v", h.Size, told)
	}
	pt, _, err := TraceProxyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if st := pt.Trace.Streams[0]; st.Closed == nil {
		t.Error("the stream's end was not kept past the budget")
	}
	var text bytes.Buffer
	pt.WriteText(&text, path)
	if !strings.Contains(text.String(), "NOT COMPLETE: the capture budget of 4096 bytes was reached") {
		t.Errorf("the trace does not say what was dropped:\n%.400s", text.String())
	}
}

func TestProxyFileRejectsDamage(t *testing.T) {
	path, _ := writeProxyCapture(t, 0, nil)
	good, _ := os.ReadFile(path)
	nl := bytes.IndexByte(good[len(proxyFileMagic):], '\n') + len(proxyFileMagic)
	for name, mutate := range map[string]func([]byte) []byte{
		"flipped data byte": func(b []byte) []byte { b[len(b)-5] ^= 0xff; return b },
		"truncated":         func(b []byte) []byte { return b[:len(b)-10] },
		"appended":          func(b []byte) []byte { return append(b, 0) },
		"other sha": func(b []byte) []byte {
			i := bytes.Index(b, []byte(`"sha256":"`)) + len(`"sha256":"`)
			if b[i] == '0' {
				b[i] = '1'
			} else {
				b[i] = '0'
			}
			return b
		},
		"huge size": func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"size":`), []byte(`"size":9999999999999,"x":`), 1)
		},
		"long header": func(b []byte) []byte {
			return append(append(append([]byte(nil), b[:nl-1]...), bytes.Repeat([]byte(" "), 70<<10)...), b[nl-1:]...)
		},
		"other version": func(b []byte) []byte { return bytes.Replace(b, []byte(`"version":1`), []byte(`"version":7`), 1) },
		"not a capture": func(b []byte) []byte { return []byte(`{"schemaVersion":1}`) },
	} {
		t.Run(name, func(t *testing.T) {
			bad := filepath.Join(t.TempDir(), "bad.capture")
			if err := os.WriteFile(bad, mutate(append([]byte(nil), good...)), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, _, err := ReadProxyFile(bad); err == nil {
				t.Fatal("a damaged capture file was accepted")
			}
		})
	}
}

func TestStatementKind(t *testing.T) {
	for sql, want := range map[string]string{
		"select 1": "SELECT", "  -- note\n(SELECT 1)": "SELECT", "/* x */ update t set a=1": "UPDATE",
		"": "EMPTY", "  ": "EMPTY", "\x00": "?", "with x as (select 1) select * from x": "WITH",
	} {
		if got := StatementKind(sql); got != want {
			t.Errorf("StatementKind(%q) = %q, want %q", sql, got, want)
		}
	}
}

// FuzzReadProxyFile: any bytes are refused or read, never a panic or an
// allocation beyond what the input can justify.
func FuzzReadProxyFile(f *testing.F) {
	dir := f.TempDir()
	path := filepath.Join(dir, "seed.capture")
	w, err := NewProxyWriter(path, ProxyHeader{}, ProxyWriterOptions{})
	if err != nil {
		f.Fatal(err)
	}
	w.Bytes(0, netproxy.ClientToServer, []byte("Q\x00\x00\x00\x0dselect 1\x00"))
	if _, err := w.Close(); err != nil {
		f.Fatal(err)
	}
	seed, _ := os.ReadFile(path)
	f.Add(seed)
	f.Add([]byte(proxyFileMagic + "{}\n"))
	// A working file (a partial capture), as a kill -9 leaves it.
	pw, err := NewProxyWriter(filepath.Join(dir, "partial.capture"), ProxyHeader{}, ProxyWriterOptions{FlushEvery: time.Millisecond})
	if err != nil {
		f.Fatal(err)
	}
	pw.Bytes(0, netproxy.ClientToServer, []byte("Q\x00\x00\x00\x0dselect 1\x00"))
	time.Sleep(50 * time.Millisecond)
	partial, _ := os.ReadFile(pw.WorkingFile())
	pw.Close()
	f.Add(partial)
	f.Fuzz(func(t *testing.T, data []byte) {
		h, raw, err := readProxy(bytes.NewReader(data), int64(len(data)))
		if err == nil && (h == nil || int64(len(raw)) != h.Size) {
			t.Fatal("accepted without a consistent header")
		}
	})
}

// TestProxyWriterRecordsAsTheArena: a proxy capture holds exactly the
// records an attempt's arena would (timestamps aside).
func TestProxyWriterRecordsAsTheArena(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.capture")
	w, err := NewProxyWriter(path, ProxyHeader{}, ProxyWriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := NewArena()
	for _, r := range []netproxy.Recorder{w, a.Recorder(0)} {
		r.Bytes(3, netproxy.ClientToServer, []byte("Q\x00\x00\x00\x0dselect 1\x00"))
		r.Redacted(3, netproxy.ServerToClient, []byte("R\x00\x00\x00\x0c\x00\x00\x00\x0b"), 99, "SASL exchange")
		r.Closed(3, errors.New("gone"))
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	_, raw, err := ReadProxyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	zeroTimes := func(b []byte) []byte {
		b = append([]byte(nil), b...)
		for off := 0; off+recordHeader <= len(b); {
			n := int(b[off+16])<<24 | int(b[off+17])<<16 | int(b[off+18])<<8 | int(b[off+19])
			copy(b[off+8:off+16], make([]byte, 8))
			off += recordHeader + n
		}
		return b
	}
	if !bytes.Equal(zeroTimes(raw), zeroTimes(a.Bytes())) {
		t.Fatalf("proxy capture records\n%q\ndiffer from the arena's\n%q", raw, a.Bytes())
	}
}

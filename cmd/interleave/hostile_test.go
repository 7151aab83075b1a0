package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pginterleave/interleave/capture"
	"github.com/pginterleave/interleave/netproxy"
)

// proxyCaptureWithSQL writes a proxy capture file of one session that
// sends sql as a simple Query.
func proxyCaptureWithSQL(t *testing.T, sql string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "x.capture")
	w, err := capture.NewProxyWriter(path, capture.ProxyHeader{Listen: "127.0.0.1:6432", Upstream: "127.0.0.1:5432"}, capture.ProxyWriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Bytes(0, netproxy.ClientToServer, []byte("\x00\x00\x00\x12\x00\x03\x00\x00user\x00bob\x00\x00"))
	w.Bytes(0, netproxy.ServerToClient, []byte("R\x00\x00\x00\x08\x00\x00\x00\x00Z\x00\x00\x00\x05I"))
	q := []byte{'Q', 0, 0, 0, 0}
	q = append(append(q, sql...), 0)
	binary.BigEndian.PutUint32(q[1:], uint32(len(q)-1))
	w.Bytes(0, netproxy.ClientToServer, q)
	w.Bytes(0, netproxy.ServerToClient, []byte("C\x00\x00\x00\x0dSELECT 1\x00Z\x00\x00\x00\x05I"))
	w.Closed(0, nil)
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestJSONOutputsEscapeControlAndBidi: --json strings carry no raw C1
// control (U+009B is a CSI) or bidirectional override: they leave as
// \uXXXX, where the text output prints '?' (issue 19 item 8).
func TestJSONOutputsEscapeControlAndBidi(t *testing.T) {
	sql := "select '\u009b2J\u202eevil\u202c\u2066x\u2069'"
	path := proxyCaptureWithSQL(t, sql)
	out, code := runCaptured(t, []string{"trace", path, "--json"})
	if code != 0 {
		t.Fatalf("trace --json: exit %d\n%s", code, out)
	}
	for _, r := range []rune{'\u009b', '\u202e', '\u202c', '\u2066', '\u2069'} {
		if strings.ContainsRune(out, r) {
			t.Errorf("trace --json printed %U raw", r)
		}
	}
	for _, want := range []string{`\u009b2J`, `\u202eevil\u202c`, `\u2066x\u2069`} {
		if !strings.Contains(out, want) {
			t.Errorf("trace --json: %s missing from\n%s", want, out)
		}
	}
}

// TestMergeBoundsTheShardCount: a summary naming more shards than
// maxShards, or a shard outside its count, is refused at once with exit 2
// (issue 19 item 3: a 655-byte summary saying "shards": 2147483647 made
// merge run out of memory listing the shards that did not report).
func TestMergeBoundsTheShardCount(t *testing.T) {
	for _, c := range []struct{ name, shards string }{
		{"2^20", `"shard": 1, "shards": 1048576`},
		{"2^31-1", `"shard": 1, "shards": 2147483647`},
		{"shard outside", `"shard": 9, "shards": 2`},
		{"negative", `"shard": 1, "shards": -3`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "s.json")
			body := `{"schemaVersion": 1, "scenario": "counter", "outcome": "pass", "strategy": "bfs", "exhausted": true, ` + c.shards + `}`
			if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			out, code := runCaptured(t, []string{"merge", p})
			if code != 2 || !strings.Contains(out, "it is not a summary of a sharded search") {
				t.Fatalf("merge: exit %d, want 2 with a reason\n%.500s", code, out)
			}
		})
	}
}

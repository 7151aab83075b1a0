package capture

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"

	"github.com/pginterleave/interleave/internal/redact"
	"github.com/pginterleave/interleave/netproxy"
)

// query is a simple-protocol Query message.
func query(sql string) []byte {
	n := 4 + len(sql) + 1
	return append([]byte{'Q', byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}, append([]byte(sql), 0)...)
}

// TestRedactMasksEveryStreamByteForByte: a configured secret in SQL text,
// in a server error split between two reads and in a close reason, and a
// PASSWORD literal, are masked; the masked capture has the same records,
// times and lengths, and the raw capture is not written.
func TestRedactMasksEveryStreamByteForByte(t *testing.T) {
	const secret = "Sekr1t-Value"
	a := NewArena()
	rec := a.Recorder(1)
	rec.Bytes(0, netproxy.ClientToServer, query("SELECT '"+secret+"'::int"))
	errMsg := "E\x00\x00\x00\x40SERROR\x00C22P02\x00Minvalid input syntax for type integer: \"" + secret + "\"\x00\x00"
	cut := bytes.Index([]byte(errMsg), []byte("1t-V")) // the secret straddles two reads
	rec.Bytes(0, netproxy.ServerToClient, []byte(errMsg[:cut]))
	rec.Bytes(0, netproxy.ServerToClient, []byte(errMsg[cut:]))
	rec.Bytes(0, netproxy.ClientToServer, query("ALTER ROLE app PASSWORD 'app'"))
	rec.Closed(0, errors.New("lost "+secret))
	raw := append([]byte(nil), a.Bytes()...)
	orig := append([]byte(nil), raw...)

	out, err := Redact(raw, redact.Password(secret))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(raw, orig) {
		t.Fatal("Redact wrote its input")
	}
	if len(out) != len(raw) || bytes.Contains(out, []byte(secret)) || bytes.Contains(out, []byte("Sekr1t")) || bytes.Contains(out, []byte("t-Value")) || bytes.Contains(out, []byte("'app'")) {
		t.Fatalf("redacted capture: %q", out)
	}
	before, _ := Decode(raw)
	after, err := Decode(out)
	if err != nil || len(after) != len(before) {
		t.Fatalf("the masked capture decodes to %d records (%v), want %d", len(after), err, len(before))
	}
	for i := range before {
		if before[i].At != after[i].At || len(before[i].Data) != len(after[i].Data) || before[i].Kind != after[i].Kind {
			t.Errorf("record %d changed its time, kind or length", i)
		}
	}
	if _, err := Redact(raw[:len(raw)-1], redact.Password(secret)); err == nil {
		t.Error("a capture cut short was redacted")
	}
}

// TestProxyFileMasksPasswordLiterals: a recording proxy masks the
// PASSWORD literals clients send, and a long one everywhere after, and the
// secrets it is configured with.
func TestProxyFileMasksPasswordLiterals(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.capture")
	w, err := NewProxyWriter(path, ProxyHeader{}, ProxyWriterOptions{Secrets: []string{"configured-pw"}})
	if err != nil {
		t.Fatal(err)
	}
	w.Bytes(0, netproxy.ClientToServer, []byte("\x00\x00\x00\x12\x00\x03\x00\x00user\x00bob\x00\x00"))
	w.Bytes(0, netproxy.ClientToServer, query("ALTER ROLE app PASSWORD 'literal-pw-1'"))
	w.Bytes(0, netproxy.ServerToClient, []byte("NOTICE literal-pw-1 configured-pw"))
	w.Bytes(0, netproxy.ClientToServer, query("SELECT 'configured-pw', 'literal-pw-1'"))
	w.Closed(0, nil)
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	_, raw, err := ReadProxyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("literal-pw-1")) || bytes.Contains(raw, []byte("configured-pw")) || !bytes.Contains(raw, []byte("PASSWORD '************'")) {
		t.Fatalf("the proxy's capture: %q", raw)
	}
}

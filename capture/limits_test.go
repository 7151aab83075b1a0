package capture

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"testing"

	"github.com/pginterleave/interleave/netproxy"
)

// emptyRecords is n records of no payload: 20 bytes each.
func emptyRecords(n int) []byte {
	raw := make([]byte, n*recordHeader)
	for i := 0; i < n; i++ {
		raw[i*recordHeader+2] = uint8(netproxy.ServerToClient)
	}
	return raw
}

// TestDecodeBoundsTheRecordCount: a capture of more than MaxRecords
// records is refused before the records are allocated (issue 19 item 3:
// 80 KB of zstd holding 13.4 million empty records took 6.2 GB), and one
// at the bound decodes with one allocation of its exact size.
func TestDecodeBoundsTheRecordCount(t *testing.T) {
	raw := emptyRecords(MaxRecords + 1)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Decode(raw)
	runtime.ReadMemStats(&after)
	if err == nil || !errors.Is(err, ErrOverLimit) {
		t.Fatalf("Decode of %d records: %v, want ErrOverLimit", MaxRecords+1, err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Fatalf("Decode allocated %d bytes before refusing", grew)
	}
	if _, err := Trace(raw, nil, nil); err == nil || !errors.Is(err, ErrOverLimit) {
		t.Fatalf("Trace: %v, want ErrOverLimit", err)
	}
	recs, err := Decode(raw[:MaxRecords*recordHeader])
	if err != nil || len(recs) != MaxRecords || cap(recs) != MaxRecords {
		t.Fatalf("Decode at the bound: %d records (capacity %d), %v", len(recs), cap(recs), err)
	}
}

// TestTraceBoundsTheMessageCount: one client write of more Sync messages
// than MaxTraceMessages (issue 19 item 3: a 250 MiB record of Syncs, 74
// KB compressed, drove trace to 8.8 GB and out of memory) is refused with
// ErrOverLimit, and so are as many server messages; a smaller write is
// traced.
func TestTraceBoundsTheMessageCount(t *testing.T) {
	record := func(dir netproxy.Direction, payload []byte) []byte {
		h := make([]byte, recordHeader)
		h[2] = uint8(dir)
		binary.BigEndian.PutUint32(h[16:], uint32(len(payload)))
		return append(h, payload...)
	}
	startup := []byte("\x00\x00\x00\x12\x00\x03\x00\x00user\x00bob\x00\x00")
	syncs := func(n int) []byte { return bytes.Repeat([]byte("S\x00\x00\x00\x04"), n) }
	noData := func(n int) []byte { return bytes.Repeat([]byte("n\x00\x00\x00\x04"), n) }

	// Refused before the messages are decoded: what Trace allocates is a
	// small part of what they would take (about 300 MiB).
	refused := func(what string, raw []byte) {
		t.Helper()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := Trace(raw, nil, nil)
		runtime.ReadMemStats(&after)
		if err == nil || !errors.Is(err, ErrOverLimit) {
			t.Fatalf("Trace of %s: %v, want ErrOverLimit", what, err)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 32<<20 {
			t.Fatalf("Trace of %s allocated %d MiB before refusing", what, grew>>20)
		}
	}
	refused("more Syncs in one write than the bound", append(record(netproxy.ClientToServer, startup), record(netproxy.ClientToServer, syncs(MaxTraceMessages+1))...))
	refused("more server messages in one record than the bound", append(record(netproxy.ClientToServer, startup), record(netproxy.ServerToClient, noData(MaxTraceMessages+1))...))
	within := append(record(netproxy.ClientToServer, startup), record(netproxy.ClientToServer, syncs(1000))...)
	res, err := Trace(within, nil, nil)
	if err != nil {
		t.Fatalf("Trace within the bound: %v", err)
	}
	if n := len(res.Streams[0].Exchanges[0].Client); n != 1000 {
		t.Fatalf("traced %d messages, want 1000", n)
	}
}

// TestProxyWriterStopsAtMaxRecords: a proxy capture never holds more
// records than a reader decodes: past the bound (less room for the ends
// of its streams) records are dropped and the file says so, and trace
// reads it.
func TestProxyWriterStopsAtMaxRecords(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 2 million records")
	}
	path := t.TempDir() + "/x.capture"
	w, err := NewProxyWriter(path, ProxyHeader{}, ProxyWriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < MaxRecords+10; i++ {
		w.Bytes(0, netproxy.ServerToClient, []byte{'N'})
	}
	w.Closed(0, nil)
	h, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if h.Dropped == nil || h.Dropped.Records < 10 {
		t.Fatalf("nothing dropped past %d records: %+v", MaxRecords, h.Dropped)
	}
	_, raw, err := ReadProxyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(raw); err != nil {
		t.Fatalf("the file the writer wrote does not decode: %v", err)
	}
}

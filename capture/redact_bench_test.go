package capture

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/internal/redact"
	"github.com/pginterleave/interleave/netproxy"
)

// benchCapture is a capture of n round trips of a small query and its row
// over 8 connections, with a password in one query of every 100.
func benchCapture(n int) []byte {
	a := NewArena()
	rec := a.Recorder(0)
	for i := 0; i < n; i++ {
		sql := fmt.Sprintf("SELECT balance FROM accounts WHERE id = %d FOR UPDATE", i)
		if i%100 == 0 {
			sql = "ALTER ROLE app PASSWORD 'Sekr1t-Value-" + fmt.Sprint(i) + "'"
		}
		rec.Bytes(i%8, netproxy.ClientToServer, query(sql))
		rec.Bytes(i%8, netproxy.ServerToClient, []byte("T\x00\x00\x00\x20\x00\x01balance\x00\x00\x00\x40\x01\x00\x01\x00\x00\x00\x17\x00\x04\xff\xff\xff\xff\x00\x00D\x00\x00\x00\x0e\x00\x01\x00\x00\x00\x0412345C\x00\x00\x00\x0dSELECT 1\x00Z\x00\x00\x00\x05T"))
	}
	return append([]byte(nil), a.Bytes()...)
}

// BenchmarkRecordCapture is what keeping a capture costs at record time,
// without redaction (encode: zstd and base64) and with it (Redact, then
// encode), over the same 100,000 round trips (about 15 MB), and Redact
// alone. docs/reliability.md gives the ratio:
//
//	go test ./capture -run '^$' -bench RecordCapture -count 5
func BenchmarkRecordCapture(b *testing.B) {
	raw := benchCapture(100000)
	s := redact.Password("server-Password-1").With("configured-secret")
	b.Run("encode", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for i := 0; i < b.N; i++ {
			if _, _, err := artifact.EncodeCapture(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("redact+encode", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for i := 0; i < b.N; i++ {
			masked, err := Redact(raw, s)
			if err != nil {
				b.Fatal(err)
			}
			if _, _, err := artifact.EncodeCapture(masked); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("redact", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for i := 0; i < b.N; i++ {
			if _, err := Redact(raw, s); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkRedactionCost times, in each iteration, encoding the capture as
// it is and redacting it, back to back, so that both see the same load of
// a shared machine; it reports the median of the per-iteration ratios
// (redact/encode: what redaction adds to keeping a capture) and redaction's
// throughput at that median:
//
//	go test ./capture -run '^$' -bench RedactionCost -benchtime 20x
func BenchmarkRedactionCost(b *testing.B) {
	raw := benchCapture(100000)
	s := redact.Password("server-Password-1").With("configured-secret")
	var ratios, speeds []float64
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, _, err := artifact.EncodeCapture(raw); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := Redact(raw, s); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		ratios = append(ratios, float64(t2.Sub(t1))/float64(t1.Sub(t0)))
		speeds = append(speeds, float64(len(raw))/t2.Sub(t1).Seconds()/1e6)
	}
	slices.Sort(ratios)
	slices.Sort(speeds)
	b.ReportMetric(ratios[len(ratios)/2], "redact/encode")
	b.ReportMetric(speeds[len(speeds)/2], "redact-MB/s")
	b.ReportMetric(float64(len(raw))/1e6, "capture-MB")
}

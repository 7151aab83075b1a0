package artifact_test

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/pginterleave/interleave/artifact"
)

// TestCaptureBytesAllocatesItsSizeOnce: decoding a capture takes about its
// size, not the twice that growing by doubling took (a 250 MiB capture of
// a 64 KB artifact was half a gigabyte before trace even began).
func TestCaptureBytesAllocatesItsSizeOnce(t *testing.T) {
	raw := bytes.Repeat([]byte("S\x00\x00\x00\x04"), 16<<20/5)
	c, _, err := artifact.EncodeCapture(raw)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, err := c.Bytes()
	runtime.ReadMemStats(&after)
	if err != nil || !bytes.Equal(got, raw) {
		t.Fatalf("Bytes: %v", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > uint64(len(raw))*7/4 { // the zstd decoder takes about half as much again
		t.Fatalf("Bytes of %d bytes allocated %d", len(raw), grew)
	}
}

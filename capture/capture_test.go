package capture

import (
	"bytes"
	"errors"
	"testing"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/netproxy"
)

func TestArenaRoundTrip(t *testing.T) {
	a := NewArena()
	r0, r1 := a.Recorder(0), a.Recorder(1)
	r0.Bytes(0, netproxy.ClientToServer, []byte("Q\x00\x00\x00\x0dselect 1\x00"))
	r1.Redacted(3, netproxy.ClientToServer, []byte("p\x00\x00\x00\x29"), 42, "authentication response")
	r1.Bytes(3, netproxy.ServerToClient, []byte("Z\x00\x00\x00\x05I"))
	r0.Closed(0, errors.New("gone"))
	c, _, err := artifact.EncodeCapture(a.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	raw, err := c.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	recs, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 {
		t.Fatalf("%d records", len(recs))
	}
	if recs[0].Actor != 0 || !bytes.Contains(recs[0].Data, []byte("select 1")) {
		t.Errorf("record 0: %+v", recs[0])
	}
	if recs[1].Kind != KindRedacted || recs[1].Length != 42 || recs[1].What != "authentication response" || recs[1].Actor != 1 || recs[1].Stream != 3 {
		t.Errorf("record 1: %+v", recs[1])
	}
	if recs[3].Kind != KindClosed || string(recs[3].Data) != "gone" {
		t.Errorf("record 3: %+v", recs[3])
	}
	for i := 1; i < len(recs); i++ {
		if recs[i].At < recs[i-1].At {
			t.Errorf("timestamps go backwards at %d", i)
		}
	}
	a.Reset()
	if len(a.Bytes()) != 0 {
		t.Error("Reset kept records")
	}
}

func FuzzDecode(f *testing.F) {
	a := NewArena()
	a.Recorder(2).Bytes(1, netproxy.ServerToClient, []byte("hello"))
	a.Recorder(2).Redacted(1, netproxy.ClientToServer, []byte("p1234"), 9, "x")
	f.Add(append([]byte(nil), a.Bytes()...))
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, raw []byte) {
		recs, err := Decode(raw)
		if err == nil {
			total := 0
			for _, r := range recs {
				total += len(r.Data) + len(r.Header)
			}
			if total > len(raw) {
				t.Fatalf("decoded %d payload bytes from %d", total, len(raw))
			}
		}
	})
}

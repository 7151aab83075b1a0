package pcapng

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/pginterleave/interleave/capture"
	"github.com/pginterleave/interleave/netproxy"
)

func TestPCAPNGIsReproducible(t *testing.T) {
	raw := synth(t)
	var a, b bytes.Buffer
	if err := Write(&a, raw); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // nothing may depend on the clock
	if err := Write(&b, raw); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two pcapng files of the same capture differ")
	}
	r, err := pcapgo.NewNgReader(bytes.NewReader(a.Bytes()), pcapgo.DefaultNgReaderOptions)
	if err != nil {
		t.Fatal(err)
	}
	if si := r.SectionInfo(); si.Application != "interleave" || si.Hardware != "" || si.OS != "" {
		t.Errorf("section info depends on the host: %+v", si)
	}
	if intf, err := r.Interface(0); err != nil || intf.OS != "" || intf.Name != "interleave" || intf.LinkType != layers.LinkTypeEthernet {
		t.Errorf("interface: %+v, %v", intf, err)
	}
}

func TestPCAPNGStreams(t *testing.T) {
	raw := synth(t)
	verifyPCAP(t, raw, 3)
}

// Large payloads are split into segments; redacted messages keep their
// place in the sequence space; a stream the capture does not see end still
// gets its FINs.
func TestPCAPNGSegmentsAndRedactions(t *testing.T) {
	a := capture.NewArena()
	r := a.Recorder(3)
	c2s, s2c := netproxy.ClientToServer, netproxy.ServerToClient
	r.Bytes(5, c2s, startup(t))
	r.Redacted(5, c2s, []byte{'p', 0, 0, 0, 99}, 100, "authentication response")
	big := make([]byte, 200_000)
	for i := range big {
		big[i] = byte(i * 7)
	}
	r.Bytes(5, s2c, big)
	r.Bytes(5, c2s, []byte("Q\x00\x00\x00\x0dselect 1\x00"))
	raw := a.Bytes()
	pkts := verifyPCAP(t, raw, 1)
	segs := 0
	for _, p := range pkts {
		if len(p.tcp.Payload) > maxSegment {
			t.Fatalf("a segment of %d bytes", len(p.tcp.Payload))
		}
		if !p.fromClient && len(p.tcp.Payload) > 0 {
			segs++
		}
	}
	if segs != 4 {
		t.Errorf("200000 server bytes in %d segments, want 4", segs)
	}
	if pkts[0].tcp.SrcPort != 40000 {
		t.Errorf("client port %d", pkts[0].tcp.SrcPort)
	}
	// A redacted message longer than any authentication message is refused.
	b := capture.NewArena()
	b.Recorder(0).Redacted(0, c2s, []byte{'p', 0, 0, 0, 9}, maxRedacted+1, "x")
	if err := Write(io.Discard, b.Bytes()); !errors.Is(err, capture.ErrCorrupt) {
		t.Errorf("an implausible redaction: %v", err)
	}
}

type pcapPacket struct {
	ts         time.Time
	fromClient bool
	ip         *layers.IPv4
	tcp        *layers.TCP
	comments   []string
}

// verifyPCAP writes raw as pcapng, reads it back and checks every stream:
// handshake, data segments carrying exactly the capture's bytes with
// consistent sequence and acknowledgement numbers, timestamps from the
// records, valid checksums, FINs at the end.
func verifyPCAP(t *testing.T, raw []byte, streams int) []pcapPacket {
	t.Helper()
	var out bytes.Buffer
	if err := Write(&out, raw); err != nil {
		t.Fatal(err)
	}
	rd, err := pcapgo.NewNgReader(bytes.NewReader(out.Bytes()), pcapgo.DefaultNgReaderOptions)
	if err != nil {
		t.Fatal(err)
	}
	var all []pcapPacket
	flows := map[uint16][]pcapPacket{}
	for {
		data, ci, opts, err := rd.ReadPacketDataWithOptions()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		pkt := gopacket.NewPacket(data, layers.LayerTypeEthernet, gopacket.Default)
		ip, _ := pkt.Layer(layers.LayerTypeIPv4).(*layers.IPv4)
		tcp, _ := pkt.Layer(layers.LayerTypeTCP).(*layers.TCP)
		if ip == nil || tcp == nil {
			t.Fatalf("packet %d is not IPv4/TCP: %v", len(all), pkt)
		}
		checkChecksums(t, data[14:], ip)
		p := pcapPacket{ts: ci.Timestamp, fromClient: tcp.DstPort == PCAPServerPort, ip: ip, tcp: tcp, comments: opts.Comments}
		client := tcp.SrcPort
		if p.fromClient {
			if !ip.SrcIP.Equal(pcapClientIP) || !ip.DstIP.Equal(pcapServerIP) {
				t.Fatalf("client packet %s -> %s", ip.SrcIP, ip.DstIP)
			}
		} else {
			if tcp.SrcPort != PCAPServerPort || !ip.SrcIP.Equal(pcapServerIP) {
				t.Fatalf("a packet neither to nor from the server: %v", pkt)
			}
			client = tcp.DstPort
		}
		if len(all) > 0 && p.ts.Before(all[len(all)-1].ts) {
			t.Fatalf("packet %d goes back in time", len(all))
		}
		all = append(all, p)
		flows[uint16(client)] = append(flows[uint16(client)], p)
	}
	if len(flows) != streams {
		t.Fatalf("%d TCP streams, want %d", len(flows), streams)
	}

	// What each stream must carry, per direction, and when.
	recs, _ := capture.Decode(raw)
	ports, _, _ := capture.StreamPorts(recs)
	type want struct {
		bytes [2][]byte
		times [2][]time.Time // one per record, in order
		first time.Time
	}
	wants := map[uint16]*want{}
	for _, r := range recs {
		port := uint16(ports[capture.StreamKey{Actor: r.Actor, Stream: r.Stream}])
		w := wants[port]
		if w == nil {
			w = &want{first: pcapEpoch.Add(r.At)}
			wants[port] = w
		}
		d := 0
		if r.Dir == netproxy.ServerToClient {
			d = 1
		}
		switch r.Kind {
		case capture.KindBytes:
			w.bytes[d] = append(w.bytes[d], r.Data...)
			w.times[d] = append(w.times[d], pcapEpoch.Add(r.At))
		case capture.KindRedacted:
			p := make([]byte, r.Length)
			copy(p, r.Header)
			w.bytes[d] = append(w.bytes[d], p...)
			w.times[d] = append(w.times[d], pcapEpoch.Add(r.At))
		}
	}
	for port, ps := range flows {
		w := wants[port]
		if w == nil {
			t.Fatalf("port %d carries no capture stream", port)
		}
		if len(ps) < 6 {
			t.Fatalf("port %d: %d packets", port, len(ps))
		}
		syn, synack, ack := ps[0].tcp, ps[1].tcp, ps[2].tcp
		if !ps[0].fromClient || !syn.SYN || syn.ACK || syn.Seq != clientISN ||
			ps[1].fromClient || !synack.SYN || !synack.ACK || synack.Seq != serverISN || synack.Ack != clientISN+1 ||
			!ps[2].fromClient || ack.SYN || !ack.ACK || ack.Seq != clientISN+1 || ack.Ack != serverISN+1 {
			t.Fatalf("port %d: no handshake first: %+v %+v %+v", port, syn, synack, ack)
		}
		if !ps[0].ts.Equal(w.first) || len(ps[0].comments) != 1 {
			t.Errorf("port %d: SYN at %v, want %v; comments %q", port, ps[0].ts, w.first, ps[0].comments)
		}
		next := [2]uint32{clientISN + 1, serverISN + 1}
		var got [2][]byte
		var times [2][]time.Time
		body := ps[3 : len(ps)-3]
		for i, p := range body {
			d, o := 0, 1
			if !p.fromClient {
				d, o = 1, 0
			}
			if p.tcp.SYN || p.tcp.FIN || !p.tcp.ACK || len(p.tcp.Payload) == 0 {
				t.Fatalf("port %d packet %d: not a data segment: %+v", port, i+3, p.tcp)
			}
			if p.tcp.Seq != next[d] || p.tcp.Ack != next[o] {
				t.Fatalf("port %d packet %d: seq %d ack %d, want %d %d", port, i+3, p.tcp.Seq, p.tcp.Ack, next[d], next[o])
			}
			next[d] += uint32(len(p.tcp.Payload))
			got[d] = append(got[d], p.tcp.Payload...)
			if p.tcp.PSH { // the last segment of a record
				times[d] = append(times[d], p.ts)
			}
		}
		for d := range 2 {
			if !bytes.Equal(got[d], w.bytes[d]) {
				t.Fatalf("port %d direction %d: %d bytes carried, the capture has %d", port, d, len(got[d]), len(w.bytes[d]))
			}
			if len(times[d]) != len(w.times[d]) {
				t.Fatalf("port %d direction %d: %d records, want %d", port, d, len(times[d]), len(w.times[d]))
			}
			for i := range times[d] {
				if !times[d][i].Equal(w.times[d][i]) {
					t.Fatalf("port %d direction %d record %d at %v, want %v", port, d, i, times[d][i], w.times[d][i])
				}
			}
		}
		fin1, fin2, last := ps[len(ps)-3], ps[len(ps)-2], ps[len(ps)-1]
		if !fin1.fromClient || !fin1.tcp.FIN || fin1.tcp.Seq != next[0] || fin1.tcp.Ack != next[1] ||
			fin2.fromClient || !fin2.tcp.FIN || fin2.tcp.Seq != next[1] || fin2.tcp.Ack != next[0]+1 ||
			!last.fromClient || last.tcp.FIN || last.tcp.Seq != next[0]+1 || last.tcp.Ack != next[1]+1 {
			t.Fatalf("port %d: no FINs last: %+v %+v %+v", port, fin1.tcp, fin2.tcp, last.tcp)
		}
	}
	return all
}

// checkChecksums recomputes the IPv4 header and TCP checksums of pkt (an IP
// packet).
func checkChecksums(t *testing.T, pkt []byte, ip *layers.IPv4) {
	t.Helper()
	hl := int(ip.IHL) * 4
	if sum(0, pkt[:hl]) != 0xffff {
		t.Fatalf("bad IPv4 header checksum")
	}
	seg := pkt[hl:ip.Length]
	var pseudo [12]byte
	copy(pseudo[0:4], ip.SrcIP.To4())
	copy(pseudo[4:8], ip.DstIP.To4())
	pseudo[9] = 6
	binary.BigEndian.PutUint16(pseudo[10:], uint16(len(seg)))
	if sum(sum(0, pseudo[:]), seg) != 0xffff {
		t.Fatalf("bad TCP checksum")
	}
}

// sum is the ones' complement sum used by IP and TCP checksums.
func sum(acc uint32, b []byte) uint32 {
	for len(b) >= 2 {
		acc += uint32(binary.BigEndian.Uint16(b))
		b = b[2:]
	}
	if len(b) == 1 {
		acc += uint32(b[0]) << 8
	}
	for acc > 0xffff {
		acc = acc>>16 + acc&0xffff
	}
	return acc
}

// synth is the capture package's synthesized capture, kept in testdata by
// capture's TestSynthCaptureGolden.
func synth(t testing.TB) []byte {
	raw, err := os.ReadFile(filepath.Join("testdata", "synth.capture"))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// FuzzWrite feeds hostile captures to Write: an error, never a panic.
func FuzzWrite(f *testing.F) {
	f.Add(synth(f))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, raw []byte) {
		_ = Write(io.Discard, raw)
	})
}

func startup(t *testing.T) []byte {
	b, err := (&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "u"}}).Encode(nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

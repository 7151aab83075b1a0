// Package pcapng writes a capture as a pcapng file that Wireshark and
// tshark read: synthesized Ethernet, IPv4 and TCP around the recorded bytes,
// one TCP connection per stream. It is its own package so that only the
// programs that write pcapng link gopacket.
package pcapng

import (
	"fmt"
	"io"
	"net"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/pginterleave/interleave/capture"
	"github.com/pginterleave/interleave/netproxy"
)

// pcapEpoch is the wall-clock time of the attempt's start in WritePCAPNG's
// output: a fixed date (2000-01-01 UTC), so that the same capture always
// gives the same file.
var pcapEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// Addresses of the synthesized TCP connections.
var (
	pcapClientIP  = net.IPv4(10, 0, 0, 1).To4()
	pcapServerIP  = net.IPv4(10, 0, 0, 2).To4()
	pcapClientMAC = net.HardwareAddr{0x02, 0, 0, 0, 0, 0x01}
	pcapServerMAC = net.HardwareAddr{0x02, 0, 0, 0, 0, 0x02}
)

const (
	// PCAPServerPort is the server's port: Wireshark dissects it as pgsql.
	PCAPServerPort = 5432
	// maxSegment is the largest TCP payload in one packet: an IPv4 packet
	// holds at most 65535 bytes with both headers.
	maxSegment = 65535 - 20 - 20
	// Initial sequence numbers, fixed for reproducible output.
	clientISN = 0x10000000
	serverISN = 0x20000000
	// maxRedacted bounds the length of a redacted authentication message:
	// its zeros are written out.
	maxRedacted = 1 << 20
	// windowShift is the TCP window scale both ends announce, so that no
	// answer however large fills the window of a receiver that never
	// acknowledges on its own.
	windowShift = 14
)

// WritePCAPNG writes raw (a capture) as a pcapng file of synthesized
// Ethernet/IPv4/TCP packets that Wireshark and tshark open as PostgreSQL
// traffic. Each capture stream becomes one TCP connection from 10.0.0.1 to
// 10.0.0.2:5432, the client's port being 40000 plus the stream's rank in
// (actor, stream) order (Trace reports it as PCAPPort): a handshake before
// its first bytes, one or more data segments per record with consistent
// sequence and acknowledgement numbers, FINs at its end. Timestamps are
// 2000-01-01 00:00:00 UTC plus each record's offset, and nothing depends on
// the host: the same capture always gives the same bytes. Redacted
// authentication messages become their kept header followed by zero bytes,
// to their recorded length, so that sequence numbers and the pgsql
// dissector's framing stay right.
func Write(w io.Writer, raw []byte) error {
	recs, err := capture.Decode(raw)
	if err != nil {
		return err
	}
	ports, keys, err := capture.StreamPorts(recs)
	if err != nil {
		return err
	}
	nw, err := pcapgo.NewNgWriterInterface(w, pcapgo.NgInterface{
		Name:                "interleave",
		Description:         "synthesized from an Interleave wire capture",
		LinkType:            layers.LinkTypeEthernet,
		SnapLength:          0,
		TimestampResolution: 9,
	}, pcapgo.NgWriterOptions{SectionInfo: pcapgo.NgSectionInfo{
		Application: "interleave",
		Comment:     "client 10.0.0.1:40000+ (one port per actor connection), server 10.0.0.2:5432",
	}})
	if err != nil {
		return err
	}
	pw := &packetWriter{nw: nw, buf: gopacket.NewSerializeBuffer()}
	conns := map[capture.StreamKey]*tcpConn{}
	var last time.Duration
	for _, r := range recs {
		k := capture.StreamKey{Actor: r.Actor, Stream: r.Stream}
		at := max(r.At, 0)
		last = max(last, at)
		c := conns[k]
		if c == nil {
			c = &tcpConn{port: uint16(ports[k]), cseq: clientISN, sseq: serverISN}
			conns[k] = c
			comment := fmt.Sprintf("interleave: actor #%d, stream %d", r.Actor, r.Stream)
			if err := pw.handshake(c, at, comment); err != nil {
				return err
			}
		}
		if c.closed {
			continue
		}
		switch r.Kind {
		case capture.KindClosed:
			c.closed = true
			comment := "interleave: the stream ended"
			if len(r.Data) > 0 {
				comment += ": " + string(r.Data)
			}
			if err := pw.close(c, at, comment); err != nil {
				return err
			}
		case capture.KindRedacted:
			if r.Length > maxRedacted {
				return fmt.Errorf("%w: a redacted message of %d bytes", capture.ErrCorrupt, r.Length)
			}
			p := make([]byte, r.Length)
			copy(p, r.Header)
			if err := pw.data(c, r.Dir, at, p); err != nil {
				return err
			}
		default:
			if err := pw.data(c, r.Dir, at, r.Data); err != nil {
				return err
			}
		}
	}
	// Streams the capture does not see end (an attempt cut short) end at
	// its last record, in the order they started.
	for _, k := range keys {
		if c := conns[k]; c != nil && !c.closed {
			if err := pw.close(c, last, "interleave: the capture ends before this stream does"); err != nil {
				return err
			}
		}
	}
	return nw.Flush()
}

// tcpConn is one synthesized connection: the next sequence number of each
// side.
type tcpConn struct {
	port       uint16
	cseq, sseq uint32
	closed     bool
}

type packetWriter struct {
	nw  *pcapgo.NgWriter
	buf gopacket.SerializeBuffer
	id  uint16
}

type tcpFlags struct{ syn, ack, psh, fin bool }

func (pw *packetWriter) packet(c *tcpConn, fromClient bool, at time.Duration, f tcpFlags, payload []byte, comment string) error {
	eth := &layers.Ethernet{SrcMAC: pcapClientMAC, DstMAC: pcapServerMAC, EthernetType: layers.EthernetTypeIPv4}
	ip := &layers.IPv4{Version: 4, IHL: 5, TTL: 64, Protocol: layers.IPProtocolTCP, Flags: layers.IPv4DontFragment,
		SrcIP: pcapClientIP, DstIP: pcapServerIP, Id: pw.id}
	tcp := &layers.TCP{SrcPort: layers.TCPPort(c.port), DstPort: PCAPServerPort, Seq: c.cseq, Ack: c.sseq,
		SYN: f.syn, ACK: f.ack, PSH: f.psh, FIN: f.fin, Window: 0xffff}
	if !fromClient {
		eth.SrcMAC, eth.DstMAC = pcapServerMAC, pcapClientMAC
		ip.SrcIP, ip.DstIP = pcapServerIP, pcapClientIP
		tcp.SrcPort, tcp.DstPort = PCAPServerPort, layers.TCPPort(c.port)
		tcp.Seq, tcp.Ack = c.sseq, c.cseq
	}
	if !f.ack {
		tcp.Ack = 0
	}
	if f.syn {
		// A SYN's window is never scaled; it announces the scale.
		tcp.Options = []layers.TCPOption{
			{OptionType: layers.TCPOptionKindMSS, OptionLength: 4, OptionData: []byte{0xff, 0xd7}}, // 65495
			{OptionType: layers.TCPOptionKindWindowScale, OptionLength: 3, OptionData: []byte{windowShift}},
			{OptionType: layers.TCPOptionKindNop},
		}
	}
	pw.id++
	if err := tcp.SetNetworkLayerForChecksum(ip); err != nil {
		return err
	}
	if err := gopacket.SerializeLayers(pw.buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true},
		eth, ip, tcp, gopacket.Payload(payload)); err != nil {
		return err
	}
	data := pw.buf.Bytes()
	ci := gopacket.CaptureInfo{Timestamp: pcapEpoch.Add(at), CaptureLength: len(data), Length: len(data)}
	var opts pcapgo.NgPacketOptions
	if comment != "" {
		opts.Comments = []string{comment}
	}
	return pw.nw.WritePacketWithOptions(ci, data, opts)
}

// handshake opens c: SYN, SYN-ACK, ACK.
func (pw *packetWriter) handshake(c *tcpConn, at time.Duration, comment string) error {
	if err := pw.packet(c, true, at, tcpFlags{syn: true}, nil, comment); err != nil {
		return err
	}
	c.cseq++
	if err := pw.packet(c, false, at, tcpFlags{syn: true, ack: true}, nil, ""); err != nil {
		return err
	}
	c.sseq++
	return pw.packet(c, true, at, tcpFlags{ack: true}, nil, "")
}

// data sends p from one side, in segments of at most maxSegment bytes.
func (pw *packetWriter) data(c *tcpConn, dir netproxy.Direction, at time.Duration, p []byte) error {
	fromClient := dir == netproxy.ClientToServer
	for len(p) > 0 {
		n := min(len(p), maxSegment)
		if err := pw.packet(c, fromClient, at, tcpFlags{ack: true, psh: n == len(p)}, p[:n], ""); err != nil {
			return err
		}
		if fromClient {
			c.cseq += uint32(n)
		} else {
			c.sseq += uint32(n)
		}
		p = p[n:]
	}
	return nil
}

// close ends c: the client's FIN, the server's FIN, the client's ACK.
func (pw *packetWriter) close(c *tcpConn, at time.Duration, comment string) error {
	if err := pw.packet(c, true, at, tcpFlags{fin: true, ack: true}, nil, comment); err != nil {
		return err
	}
	c.cseq++
	if err := pw.packet(c, false, at, tcpFlags{fin: true, ack: true}, nil, ""); err != nil {
		return err
	}
	c.sseq++
	return pw.packet(c, true, at, tcpFlags{ack: true}, nil, "")
}

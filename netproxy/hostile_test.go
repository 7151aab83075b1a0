package netproxy

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// fakeServer is an upstream that reads the start-up packet and then
// answers with reply (nothing when empty), and afterwards reads and
// drops whatever comes.
func fakeServer(t *testing.T, reply []byte) func(context.Context) (net.Conn, error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				var n [4]byte
				if _, err := io.ReadFull(c, n[:]); err != nil {
					return
				}
				if _, err := io.CopyN(io.Discard, c, int64(binary.BigEndian.Uint32(n[:]))-4); err != nil {
					return
				}
				if len(reply) > 0 {
					c.Write(reply)
				}
				io.Copy(io.Discard, c)
			}()
		}
	}()
	return func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", ln.Addr().String())
	}
}

var (
	startupPacket = []byte("\x00\x00\x00\x12\x00\x03\x00\x00user\x00bob\x00\x00")
	askPassword   = []byte("R\x00\x00\x00\x08\x00\x00\x00\x03")                   // AuthenticationCleartextPassword
	attachReply   = []byte("R\x00\x00\x00\x08\x00\x00\x00\x00Z\x00\x00\x00\x05I") // AuthenticationOk, ReadyForQuery
)

func listenHostile(t *testing.T, cfg Config) *Proxy {
	t.Helper()
	cfg.Passthrough = true
	p, err := Listen(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// readAll reads what the proxy sends until it closes the connection, or
// fails the test after limit.
func readAll(t *testing.T, c net.Conn, limit time.Duration) (string, time.Duration) {
	t.Helper()
	start := time.Now()
	c.SetReadDeadline(start.Add(limit))
	b, err := io.ReadAll(c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the proxy kept the connection open for %v (read %q)", limit, b)
	}
	return string(b), time.Since(start)
}

// TestStartupTimeout: a client that does not finish start-up and
// authentication within the start-up timeout is disconnected, whether it
// sends nothing, trickles its start-up packet a byte at a time, or never
// answers the server's password request (issue 19 item 4: a client
// sending one byte a second was kept 25 s and more).
func TestStartupTimeout(t *testing.T) {
	const timeout = 300 * time.Millisecond
	for _, c := range []struct {
		name  string
		reply []byte
		send  func(net.Conn)
	}{
		{"silent", nil, func(net.Conn) {}},
		{"trickle", nil, func(c net.Conn) {
			go func() {
				for _, b := range startupPacket {
					if _, err := c.Write([]byte{b}); err != nil {
						return
					}
					time.Sleep(50 * time.Millisecond)
				}
			}()
		}},
		{"no password", askPassword, func(c net.Conn) { c.Write(startupPacket) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := listenHostile(t, Config{Dial: fakeServer(t, c.reply), StartupTimeout: timeout})
			// From before the dial: the proxy's clock starts when it
			// accepts, which may be before this goroutine runs again.
			start := time.Now()
			conn, err := net.Dial("tcp", p.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			c.send(conn)
			got, _ := readAll(t, conn, 5*time.Second)
			if took := time.Since(start); took < timeout {
				t.Fatalf("closed after %v, before the timeout of %v", took, timeout)
			}
			if c.reply != nil && !strings.Contains(got, "start-up timeout") {
				t.Fatalf("the client was not told why: %q", got)
			}
		})
	}
}

// TestAuthenticationMessagesAreSmall: before its session is attached a
// client's message may not be larger than an authentication message:
// announcing 200 MiB fails the connection at once, with a reason, instead
// of the proxy buffering it (issue 19 item 4: four unauthenticated
// clients sending 200 MiB each made the proxy hold 1.49 GB).
func TestAuthenticationMessagesAreSmall(t *testing.T) {
	p := listenHostile(t, Config{Dial: fakeServer(t, askPassword)})
	conn, err := net.Dial("tcp", p.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.Write(startupPacket)
	huge := []byte{'p', 0, 0, 0, 0}
	binary.BigEndian.PutUint32(huge[1:], 200<<20)
	conn.Write(append(huge, bytes.Repeat([]byte{'x'}, 1<<16)...))
	got, _ := readAll(t, conn, 5*time.Second)
	if !strings.Contains(got, "before authentication completed") {
		t.Fatalf("the proxy answered %q", got)
	}
}

// TestMemoryBudget: what attached connections buffer together is bounded
// by MaxBuffered; a message that would go over it fails its connection
// with a reason, and the budget is given back when connections end.
func TestMemoryBudget(t *testing.T) {
	p := listenHostile(t, Config{Dial: fakeServer(t, attachReply), MaxBuffered: 1 << 20})
	conn, err := net.Dial("tcp", p.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.Write(startupPacket)
	ready := make([]byte, len(attachReply))
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(conn, ready); err != nil {
		t.Fatal(err)
	}
	q := []byte{'Q', 0, 0, 0, 0}
	binary.BigEndian.PutUint32(q[1:], 4<<20)
	go conn.Write(append(q, bytes.Repeat([]byte{'x'}, 2<<20)...))
	got, _ := readAll(t, conn, 5*time.Second)
	if !strings.Contains(got, "memory budget") {
		t.Fatalf("the proxy answered %q", got)
	}
	deadline := time.Now().Add(5 * time.Second)
	for p.MemoryStats().InUse != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if s := p.MemoryStats(); s.Refused != 1 || s.InUse != 0 || s.Peak == 0 || s.Peak > 1<<20 {
		t.Fatalf("memory stats %+v", s)
	}
}

// TestIdleTimeout: an attached connection through which nothing moves for
// the idle timeout is closed; one that keeps sending is not.
func TestIdleTimeout(t *testing.T) {
	const idle = 300 * time.Millisecond
	p := listenHostile(t, Config{Dial: fakeServer(t, attachReply), IdleTimeout: idle})
	attach := func() net.Conn {
		conn, err := net.Dial("tcp", p.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		conn.Write(startupPacket)
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.ReadFull(conn, make([]byte, len(attachReply))); err != nil {
			t.Fatal(err)
		}
		return conn
	}
	busy := attach()
	quiet := attach()
	stop := time.After(3 * idle)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(idle / 4):
				busy.Write([]byte("Q\x00\x00\x00\x0dselect 1\x00"))
			}
		}
	}()
	got, took := readAll(t, quiet, 5*time.Second)
	if took > 2*idle || !strings.Contains(got, "idle timeout") {
		t.Fatalf("the idle connection was closed after %v saying %q", took, got)
	}
	busy.SetReadDeadline(time.Now().Add(idle))
	if _, err := busy.Read(make([]byte, 1)); errTimeout(err) == nil {
		t.Fatalf("the busy connection was closed: %v", err)
	}
}

// errTimeout returns err when it is a read timeout (the connection is
// still open), nil otherwise.
func errTimeout(err error) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return err
	}
	return nil
}

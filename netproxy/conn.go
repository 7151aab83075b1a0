package netproxy

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

const (
	codeSSLRequest    = 80877103
	codeGSSENCRequest = 80877104
	codeCancelRequest = 80877102
)

// conn is one proxied client connection. The serve goroutine reads the
// client and owns the framer and assembler; the pump goroutine reads the
// server and owns the scanner.
type conn struct {
	p      *Proxy
	client net.Conn
	stream int
	ctx    context.Context
	cancel context.CancelFunc

	fr        *framer
	asm       assembler
	unit      Unit // reused for every Await: no allocation per unit
	sendFn    func([]byte) error
	immediate bool // the unit just sent expects no response (set by sendUnit)

	// Set by the pump before readyCh closes; read-only afterwards.
	cg      ConnGate
	pid     uint32
	readyCh chan struct{}
	done    chan struct{} // one token per completed unit
	pumped  chan struct{} // closed when the pump ends
	ended   chan struct{} // closed when serve returns

	scan backendScanner

	wmu sync.Mutex // serialises writes to the client

	starting    bool        // Starting was reported; Attach or StartFailed must follow
	plusOffered atomic.Bool // the server offered SCRAM-SHA-256-PLUS
	// authDone is set by the pump just before it forwards the server's
	// first ReadyForQuery: from then on the client may send messages of
	// MaxMessage bytes, and the start-up timeout no longer applies.
	authDone   atomic.Bool
	lastActive atomic.Int64 // unix nanoseconds; kept only with an idle timeout
	answered   bool         // the client sent an authentication response
	loseReply  atomic.Bool  // the released unit's reply is not forwarded (fault.go)

	// Kept sessions (sessions.go). greeting is the server's start-up
	// answer when the session may be kept (or was given one), sessKey what
	// it was started with; reused says the session came from Sessions.
	// lastTx is the transaction status of the last ReadyForQuery. parking
	// is set before the proxy's DISCARD ALL goes upstream; the pump sets
	// parked, before it ends, when the answer says the session is clean.
	greeting []byte
	sessKey  string
	reused   bool
	lastTx   atomic.Uint32
	readies  atomic.Int64 // ReadyForQuery messages after start-up
	parking  atomic.Bool
	parked   bool
	keptOK   bool // park detached a clean session (serve's goroutine only)

	mu         sync.Mutex
	up         net.Conn
	err        error // first failure
	aborted    bool
	terminated bool
}

func newConn(p *Proxy, nc net.Conn, stream int) *conn {
	ctx, cancel := context.WithCancel(p.ctx)
	nc = wrapSocket(nc)
	c := &conn{
		p: p, client: nc, stream: stream, ctx: ctx, cancel: cancel,
		fr:      newFramer(nc, p.cfg.MaxMessage),
		asm:     assembler{profile: p.cfg.Profile},
		readyCh: make(chan struct{}),
		done:    make(chan struct{}, 1),
		pumped:  make(chan struct{}),
		ended:   make(chan struct{}),
	}
	c.sendFn = c.sendUnit
	c.fr.authMax, c.fr.authenticating = maxAuthMessage, func() bool { return !c.authDone.Load() }
	c.fr.budget = p.budget
	return c
}

// sendUnit forwards the unit being released: it tells the scanner how the
// unit completes, then writes it. The gate may call it (through Unit.Send)
// from its own goroutine while the reader waits in Await.
func (c *conn) sendUnit(b []byte) error {
	c.immediate = c.expect(c.unit.Kind, c.unit.Types)
	return c.send(b)
}

// serve runs the connection to its end and reports how it ended.
func (c *conn) serve() {
	defer close(c.ended)
	defer c.fr.release()
	stopWatch := c.watch()
	defer stopWatch()
	err := c.run()
	if err != nil {
		c.abort(err)
	}
	c.mu.Lock()
	up := c.up
	c.mu.Unlock()
	if up != nil {
		select {
		case <-c.pumped:
		case <-c.ctx.Done():
			// The proxy is closing: the server may never end the stream
			// (a backend orphaned by a killed postmaster); closing both
			// sides ends the pump.
			c.abort(nil)
			<-c.pumped
		}
	}
	c.abort(nil)
	c.mu.Lock()
	final := c.err
	c.mu.Unlock()
	if c.cg != nil && c.attached() {
		if sk, ok := c.cg.(SessionKeeper); ok && c.keptOK {
			sk.ClosedKept()
		} else {
			c.cg.Closed(final)
		}
	} else if c.starting {
		c.p.cfg.Gate.StartFailed(c.stream, final)
	}
	c.p.cfg.Recorder.Closed(c.stream, final)
}

func (c *conn) attached() bool {
	select {
	case <-c.readyCh:
		return true
	default:
		return false
	}
}

// abort records err as the reason (when it is the first one), tells the
// client when the protocol stream allows it, and closes both sides.
func (c *conn) abort(err error) {
	c.mu.Lock()
	if c.aborted {
		c.mu.Unlock()
		return
	}
	c.aborted = true
	if c.err == nil && err != nil && !c.terminated && !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
		c.err = err
	}
	up := c.up
	c.mu.Unlock()
	if c.err != nil && c.tellClient() {
		c.wmu.Lock()
		_ = c.client.SetWriteDeadline(time.Now().Add(time.Second)) // a client that reads nothing cannot hold the abort
		_, _ = c.client.Write(errorResponse("FATAL", "08P01", c.err.Error()))
		c.wmu.Unlock()
	}
	c.cancel()
	// Wake whatever waits on either socket before closing them: a loop that
	// writes from inside a raw read of the other socket (readLoop,
	// readFramed) holds that socket until its write returns, and Close waits
	// for every holder. A deadline in the past wakes waiters without the
	// socket's locks.
	_ = c.client.SetDeadline(aLongTimeAgo)
	if up != nil {
		_ = up.SetDeadline(aLongTimeAgo)
	}
	c.client.Close()
	if up != nil {
		up.Close()
	}
}

// aLongTimeAgo is a deadline that has passed.
var aLongTimeAgo = time.Unix(1, 0)

// tellClient reports whether an ErrorResponse can be inserted into the
// server-to-client stream without cutting a message in half.
func (c *conn) tellClient() bool {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.scan.hdrN == 0 && c.scan.remain == 0
}

func (c *conn) fail(err error) error {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	c.mu.Unlock()
	return err
}

func (c *conn) run() error {
	params, err := c.startup()
	if err != nil || params == nil {
		return err
	}
	if c.p.cfg.Passthrough {
		return c.forwardAll()
	}
	return c.forward()
}

// startup handles SSL/GSSENC negotiation, cancel requests and the start-up
// packet. It returns nil params for a connection that carried a cancel.
func (c *conn) startup() ([]string, error) {
	for {
		s, e, err := c.fr.startup()
		if err != nil {
			return nil, err
		}
		pkt := c.fr.buf[s:e]
		code := binary.BigEndian.Uint32(pkt[4:8])
		switch code {
		case codeSSLRequest, codeGSSENCRequest:
			c.p.cfg.Recorder.Bytes(c.stream, ClientToServer, pkt)
			c.fr.discard()
			c.p.cfg.Recorder.Bytes(c.stream, ServerToClient, []byte{'N'})
			if _, err := c.client.Write([]byte{'N'}); err != nil {
				return nil, err
			}
			continue
		case codeCancelRequest:
			c.p.cfg.Recorder.Bytes(c.stream, ClientToServer, pkt)
			err := c.p.routeCancel(pkt)
			c.fr.discard()
			return nil, err
		}
		if code>>16 != 3 {
			return nil, c.fail(fmt.Errorf("%w: unsupported protocol version %d.%d", ErrProtocol, code>>16, code&0xffff))
		}
		params := parseStartupParams(pkt[8:])
		c.p.cfg.Gate.Starting(c.stream)
		c.starting = true
		for i := 0; i+1 < len(params); i += 2 {
			if params[i] == "replication" && params[i+1] != "false" && params[i+1] != "off" && params[i+1] != "0" {
				return nil, c.fail(ErrCopyBoth)
			}
		}
		fwd := pkt
		opts := c.p.cfg.Options
		if c.p.cfg.OptionsFor != nil {
			opts = c.p.cfg.OptionsFor(params)
		}
		if opts != "" {
			fwd = withOptions(code, params, opts)
		}
		var kept *session
		if pool := c.p.cfg.Sessions; pool != nil {
			c.sessKey = sessionKey(c.p.cfg.SessionTag, code, params, opts)
			kept = pool.take(c.sessKey)
		}
		var up net.Conn
		if kept != nil {
			up = kept.up
		} else {
			up, err = c.p.cfg.Dial(c.ctx)
			if err != nil {
				return nil, c.fail(fmt.Errorf("cannot reach PostgreSQL: %w", err))
			}
			up = wrapSocket(up)
		}
		c.mu.Lock()
		if c.aborted {
			c.mu.Unlock()
			up.Close()
			return nil, net.ErrClosed
		}
		c.up = up
		c.mu.Unlock()
		c.p.cfg.Recorder.Bytes(c.stream, ClientToServer, pkt)
		if kept != nil {
			// The session is started: the server's answer to its start-up
			// comes from what it said then (pumpStartup).
			c.greeting, c.reused = kept.greeting, true
		} else if _, err := up.Write(fwd); err != nil {
			return nil, err
		}
		c.fr.discard()
		go c.pump(params)
		return params, nil
	}
}

// withOptions is a start-up packet of protocol version code with params,
// extra appended to its options parameter (added when there is none).
func withOptions(code uint32, params []string, extra string) []byte {
	b := make([]byte, 8, 64)
	binary.BigEndian.PutUint32(b[4:8], code)
	found := false
	for i := 0; i+1 < len(params); i += 2 {
		k, v := params[i], params[i+1]
		if k == "options" && !found {
			found = true
			if v != "" {
				v += " "
			}
			v += extra
		}
		b = append(append(append(append(b, k...), 0), v...), 0)
	}
	if !found {
		b = append(append(append(append(b, "options"...), 0), extra...), 0)
	}
	b = append(b, 0)
	binary.BigEndian.PutUint32(b[0:4], uint32(len(b)))
	return b
}

// parseStartupParams reads a start-up packet's name/value pairs (after
// the protocol version): names are never empty (an empty one ends the
// list), values may be.
func parseStartupParams(b []byte) []string {
	var out []string
	for {
		k, rest, ok := cString(b)
		if !ok || k == "" {
			return out
		}
		v, rest, ok := cString(rest)
		if !ok {
			return out
		}
		out = append(out, k, v)
		b = rest
	}
}

// cString splits a zero-terminated string off b.
func cString(b []byte) (string, []byte, bool) {
	i := bytes.IndexByte(b, 0)
	if i < 0 {
		return "", nil, false
	}
	return string(b[:i]), b[i+1:], true
}

// forward is the client-reading loop after the start-up packet.
func (c *conn) forward() error {
	inflight := false
	units := 0
	for {
		typ, s, e, err := c.nextAttached()
		if err != nil {
			return err
		}
		if typ == 'H' && c.flushFollowed() {
			// A Flush sent together with more of the cycle (node-postgres
			// 8.7 writes Parse, Bind, Describe, Execute, Flush, Sync at
			// once): nothing waits on it, so it is not a boundary.
			c.asm.types = append(c.asm.types, 'H')
			continue
		}
		st, kind, err := c.asm.feed(typ)
		if err != nil {
			return c.fail(err)
		}
		switch st {
		case stepAccumulate:
			continue
		case stepPassThrough:
			if err := c.send(c.fr.buf[s:e]); err != nil {
				return err
			}
			c.fr.discard()
		case stepTerminate:
			if inflight {
				select {
				case <-c.done:
					inflight = false
				default:
				}
			}
			if c.parkable(units) {
				c.p.cfg.Recorder.Bytes(c.stream, ClientToServer, c.fr.buf[s:e])
				c.fr.discard()
				return c.park()
			}
			c.markTerminated()
			if err := c.send(c.fr.buf[s:e]); err != nil {
				return err
			}
			c.fr.discard()
			return c.terminate(!inflight)
		case stepRelease:
			if inflight {
				select {
				case <-c.done:
				case <-c.ctx.Done():
					return net.ErrClosed
				}
				inflight = false
			}
			c.unit = Unit{Kind: kind, Ordinal: units, Bytes: c.fr.unit(), Types: c.asm.types, send: c.sendFn}
			c.immediate = false
			if err := c.cg.Await(c.ctx, &c.unit); err != nil {
				return c.fail(err)
			}
			if c.applyFault() {
				return nil
			}
			inflight = true
			if err := c.unit.Send(); err != nil { // unless the gate already sent it
				return err
			}
			if c.immediate {
				// A stage the server answers with nothing (only Flush, or
				// sent while it skips to Sync after an error) is complete.
				c.cg.Complete(&Result{})
				c.done <- struct{}{}
			}
			units++
			c.fr.discard()
			c.asm.reset()
		}
	}
}

// errServerGone: the server side ended before start-up completed.
var errServerGone = net.ErrClosed

// forwardAuthResponse forwards the client's answer to an authentication
// request, bytes [s, e) of the framer, and records only its header and
// length.
func (c *conn) forwardAuthResponse(s, e int) error {
	c.answered = true
	msg := c.fr.buf[s:e]
	c.p.cfg.Recorder.Redacted(c.stream, ClientToServer, msg[:5], len(msg), "authentication response")
	if _, err := c.upstream().Write(msg); err != nil {
		return err
	}
	c.fr.discard()
	return nil
}

// markTerminated notes, before Terminate goes upstream, that the server's
// end of the socket is expected.
func (c *conn) markTerminated() {
	c.mu.Lock()
	c.terminated = true
	c.mu.Unlock()
}

// terminate ends the connection after the client's Terminate went
// upstream. With idle set nothing is running on the server: it answers
// Terminate with nothing, so closing now rather than waiting for its end of
// the socket saves the backend's exit time on every connection's close.
// Otherwise (a driver closing after a cancel, or a passthrough connection,
// which does not track completions) only the write side is closed, so that
// an answer still coming, such as 57014, is forwarded and recorded.
func (c *conn) terminate(idle bool) error {
	if idle {
		c.upstream().Close()
	} else if cw, ok := c.upstream().(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
	<-c.pumped
	return nil
}

func (c *conn) upstream() net.Conn {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.up
}

// send forwards client bytes upstream in one write and records them.
func (c *conn) send(b []byte) error {
	c.touch()
	c.p.cfg.Recorder.Bytes(c.stream, ClientToServer, b)
	_, err := c.upstream().Write(b)
	return err
}

func (c *conn) writeClient(b []byte) error {
	c.touch()
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.client.Write(b)
	return err
}

// expect tells the scanner how the unit about to be sent completes: at
// ReadyForQuery, or for a Flush-terminated stage after one response per
// message. It reports a stage that expects no response at all.
func (c *conn) expect(kind Kind, types []byte) (immediate bool) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if kind != KindStage {
		c.scan.stage = false
		return false
	}
	tokens := 0
	for _, t := range types {
		switch t {
		case 'P', 'B', 'D', 'E', 'C':
			tokens++
		}
	}
	if tokens == 0 || c.scan.skipping {
		c.scan.stage = false
		return true
	}
	c.scan.stage, c.scan.tokens = true, tokens
	return false
}

// flushWait is how long the sync-cycle profile waits, after a Flush with
// nothing behind it, for the rest of the cycle before deciding that the
// client waits on the Flush's results (which that profile refuses).
const flushWait = 5 * time.Millisecond

// flushFollowed reports whether more client bytes follow a Flush: already
// buffered, or (sync-cycle profile) arriving within flushWait.
func (c *conn) flushFollowed() bool {
	if c.fr.buffered() {
		return true
	}
	if c.asm.profile == ProfileFlushStages {
		return false
	}
	_ = c.client.SetReadDeadline(time.Now().Add(flushWait))
	err := c.fr.need(1)
	_ = c.client.SetReadDeadline(time.Time{})
	return err == nil
}

package netproxy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
)

// The pump reads server bytes into a buffer that starts small (an idle
// connection costs little) and doubles, up to pumpBufferMax, whenever a read
// fills it (large results move in fewer system calls).
const (
	pumpBufferMin = 4 << 10
	pumpBufferMax = 64 << 10
)

// pump forwards server bytes to the client. During start-up it works message
// by message (to redact authentication exchanges and attach to the gate at
// the first ReadyForQuery); afterwards it streams chunks untouched.
func (c *conn) pump(params []string) {
	defer close(c.pumped)
	rest, err := c.pumpStartup(params)
	if err != nil {
		c.abort(err)
		return
	}
	if len(rest) > 0 {
		if err := c.forwardChunk(rest); err != nil {
			c.abort(err)
			return
		}
	}
	err = readLoop(c.upstream(), make([]byte, pumpBufferMin), pumpBufferMax, func(b []byte) error {
		if err := c.forwardChunk(b); err != nil {
			return forwardError{err}
		}
		return nil
	})
	switch {
	case errors.Is(err, errParked):
		c.parked = true // read by park after pumped is closed
		return
	case errors.Is(err, errParkFailed):
		c.abort(nil) // not kept; the client, gone, is told nothing
		return
	}
	var fe forwardError
	if errors.As(err, &fe) {
		c.abort(fe.err) // the client's side, or a refused COPY BOTH
		return
	}
	c.abort(c.serverClosed(err))
}

// forwardError marks a failure to forward server bytes, as opposed to one
// reading them.
type forwardError struct{ err error }

func (e forwardError) Error() string { return e.err.Error() }
func (e forwardError) Unwrap() error { return e.err }

// readLoopConn is readLoop through net.Conn's Read.
func readLoopConn(c net.Conn, buf []byte, max int, handle func([]byte) error) error {
	for {
		n, err := c.Read(buf)
		if n > 0 {
			if herr := handle(buf[:n]); herr != nil {
				return herr
			}
			if n == len(buf) && len(buf) < max {
				buf = make([]byte, 2*len(buf))
			}
		}
		if err != nil {
			return err
		}
	}
}

// serverClosed explains the end of the server side.
func (c *conn) serverClosed(err error) error {
	c.mu.Lock()
	terminated := c.terminated
	c.mu.Unlock()
	if terminated && (err == io.EOF || errors.Is(err, net.ErrClosed)) {
		return nil
	}
	c.wmu.Lock()
	code, msg := string(c.scan.result.SQLState), string(c.scan.result.Error)
	c.wmu.Unlock()
	if code != "" {
		return fmt.Errorf("PostgreSQL closed the connection: %s (SQLSTATE %s)", msg, code)
	}
	if err == io.EOF {
		return nil // the client closed its side first; nothing went wrong here
	}
	return err
}

// forwardChunk records, scans and forwards one chunk, then acts on what the
// scanner saw (after the client has the bytes). Recording comes first so
// that the capture's order is causal: a client that answers at once cannot
// have its next write recorded before the bytes it answered.
func (c *conn) forwardChunk(b []byte) error {
	if c.loseReply.Load() {
		return c.swallowChunk(b)
	}
	if c.parking.Load() {
		return c.parkChunk(b)
	}
	c.touch()
	c.p.cfg.Recorder.Bytes(c.stream, ServerToClient, b)
	c.wmu.Lock()
	c.scan.scan(b)
	for _, ev := range c.scan.events {
		if ev == evReady {
			// Counted before the client can see it: a client that ends
			// right after this ReadyForQuery finds its unit answered
			// (parkable).
			c.lastTx.Store(uint32(c.scan.result.TxStatus))
			c.readies.Add(1)
		}
	}
	_, err := c.client.Write(b)
	c.wmu.Unlock()
	// Act on what the server said even when the client is gone: a cancelled
	// statement's 57014 belongs in the record whether or not the driver
	// stayed to read it.
	for _, ev := range c.scan.events {
		switch ev {
		case evReady, evStageDone:
			c.cg.Complete(c.scan.finishResult())
			c.scan.resetResult()
			select {
			case c.done <- struct{}{}:
			default: // an unsolicited ReadyForQuery; the reader is not waiting for it
			}
		case evCopyBoth:
			return ErrCopyBoth
		}
	}
	return err
}

// pumpStartup relays authentication and start-up messages one at a time
// until the first ReadyForQuery, then attaches to the gate. It returns any
// bytes read past that point.
func (c *conn) pumpStartup(params []string) ([]byte, error) {
	fr := newFramer(c.upstream(), 1<<20)
	if c.reused {
		fr.preload(c.greeting)
	}
	keep := c.p.cfg.Sessions != nil && !c.reused
	var greeting []byte
	for {
		typ, s, e, err := fr.next()
		if err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return nil, c.serverClosed(io.ErrUnexpectedEOF)
			}
			return nil, err
		}
		msg := fr.buf[s:e]
		if keep {
			if greeting = append(greeting, msg...); len(greeting) > maxGreeting {
				keep, greeting = false, nil
			}
		}
		switch typ {
		case 'R':
			if len(msg) >= 9 && binary.BigEndian.Uint32(msg[5:9]) == 10 && bytes.Contains(msg[9:], []byte("SCRAM-SHA-256-PLUS\x00")) {
				c.plusOffered.Store(true)
			}
			if len(msg) >= 9 && (binary.BigEndian.Uint32(msg[5:9]) == 11 || binary.BigEndian.Uint32(msg[5:9]) == 12) {
				// SASLContinue and SASLFinal carry the server's proof.
				c.p.cfg.Recorder.Redacted(c.stream, ServerToClient, msg[:9], len(msg), "SASL exchange")
			} else {
				c.p.cfg.Recorder.Bytes(c.stream, ServerToClient, msg)
			}
		case 'K':
			c.p.cfg.Recorder.Bytes(c.stream, ServerToClient, msg)
			if len(msg) >= 9 {
				c.pid = binary.BigEndian.Uint32(msg[5:9])
				c.scan.key = append(c.scan.key[:0], msg[9:]...)
			}
		case 'Z':
			c.p.cfg.Recorder.Bytes(c.stream, ServerToClient, msg)
			ordinal := c.p.registerKey(c, c.pid, c.scan.key)
			cg, err := c.p.cfg.Gate.Attach(ConnInfo{Ordinal: ordinal, Stream: c.stream, BackendPID: c.pid, Params: params})
			if err != nil {
				return nil, err
			}
			c.cg = cg
			if keep && reusableGreeting(greeting) {
				c.greeting = greeting
			}
			c.lastTx.Store('I')
			c.authDone.Store(true) // before the client can answer this ReadyForQuery
			if err := c.writeClient(msg); err != nil {
				return nil, err
			}
			close(c.readyCh)
			return fr.buf[fr.pos:fr.end], nil
		case 'E':
			c.p.cfg.Recorder.Bytes(c.stream, ServerToClient, msg)
			c.wmu.Lock()
			c.scan.parseError(msg[5:])
			c.wmu.Unlock()
		default:
			c.p.cfg.Recorder.Bytes(c.stream, ServerToClient, msg)
		}
		if err := c.writeClient(msg); err != nil {
			return nil, err
		}
		fr.discard()
	}
}

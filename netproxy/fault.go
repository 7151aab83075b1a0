package netproxy

import "net"

// A fault is a connection the proxy drops on purpose at a release unit, as
// a broken network would: the proxy never rewrites or invents protocol
// bytes, it only stops forwarding and closes both sides.
type faultKind uint8

const (
	faultNone      faultKind = iota
	faultReset               // close before the unit reaches the server
	faultLoseReply           // send the unit, drop its reply, close after it completed
)

// Reset makes the proxy close the unit's connection instead of forwarding
// the unit: the client's side and the server's side are closed, and the
// unit never reaches PostgreSQL. Only a gate may call it, before Await
// returns nil, on a unit it has not sent.
func (u *Unit) Reset() { u.fault = faultReset }

// LoseReply makes the proxy forward the unit and let it run to completion
// on the server, but not forward the server's answer to it: once the
// unit's ReadyForQuery arrives (the answer is recorded and reported to the
// gate's Complete as usual), the client's connection and then the
// server's are closed. A COMMIT so released is committed, and its client
// never hears so. Only a gate may call it, before Await returns nil.
func (u *Unit) LoseReply() { u.fault = faultLoseReply }

// applyFault acts on a fault the gate put on the unit just released, on
// the connection's reading goroutine. It reports whether the connection
// ends here (the unit must not be sent).
func (c *conn) applyFault() bool {
	switch c.unit.fault {
	case faultReset:
		c.abort(nil) // nothing to tell the client: a dropped network says nothing
		return true
	case faultLoseReply:
		c.loseReply.Store(true)
	}
	return false
}

// swallowChunk is forwardChunk for the server's answer to a unit whose
// reply is lost: the bytes are recorded and scanned (the gate hears the
// unit's completion) but not written to the client, and at the unit's
// ReadyForQuery it returns net.ErrClosed, for the pump to close both sides
// once it is out of its read of the server's socket (closing a socket from
// inside a raw read of it would wait for itself). abort takes
// net.ErrClosed for an orderly end: the client is told nothing.
func (c *conn) swallowChunk(b []byte) error {
	c.touch()
	c.p.cfg.Recorder.Bytes(c.stream, ServerToClient, b)
	c.wmu.Lock()
	c.scan.scan(b)
	copying := c.scan.result.Copy != 0
	c.wmu.Unlock()
	for _, ev := range c.scan.events {
		if ev == evReady || ev == evStageDone {
			c.cg.Complete(c.scan.finishResult())
			c.scan.resetResult()
			return net.ErrClosed
		}
	}
	if copying {
		// A COPY waits for its client, which will never hear of it: the
		// unit cannot complete, so the connection drops now.
		return net.ErrClosed
	}
	return nil
}

package netproxy

import (
	"io"
	"net"
)

// forwardAll is the client-reading loop of a passthrough proxy after the
// start-up packet. Authentication responses are forwarded (and recorded
// redacted) one by one, as with a gate. Afterwards every whole message
// already read goes upstream in one write and one record: one read from the
// client, one write to the server, whatever the client pipelines. Messages
// are never split, so a record always holds whole messages.
func (c *conn) forwardAll() error {
	_, s, _, err := c.nextAttached()
	if err != nil {
		return err
	}
	// Attached: this message and whatever follows go through the
	// streaming loop.
	c.fr.pos = s
	return c.streamMessages()
}

// nextAttached is the client's next whole message once the session is
// attached. Before that, authentication responses ('p') go to the server
// as they come, and any other message waits for the server's first
// ReadyForQuery (or fails if the server's side ended first).
func (c *conn) nextAttached() (typ byte, s, e int, err error) {
	for {
		typ, s, e, err = c.fr.next()
		if err != nil {
			if err == io.EOF && !c.attached() && !c.answered && c.plusOffered.Load() {
				return 0, 0, 0, c.fail(ErrChannelBinding)
			}
			return 0, 0, 0, err
		}
		if !c.attached() {
			if typ == 'p' {
				if err := c.forwardAuthResponse(s, e); err != nil {
					return 0, 0, 0, err
				}
				continue
			}
			select {
			case <-c.readyCh:
			case <-c.pumped:
				return 0, 0, 0, errServerGone
			}
		}
		return typ, s, e, nil
	}
}

// streamMessages forwards, after each read from the client, every whole
// message buffered in one write and one record, until Terminate or the end
// of the connection.
func (c *conn) streamMessages() error {
	terminate := false
	send := func() (bool, error) {
		for !terminate && c.fr.complete() {
			typ, s, e, err := c.fr.next()
			if err != nil {
				return true, err
			}
			terminate = typ == 'X'
			if typ == 'p' {
				// A password message after authentication is the
				// server's to refuse, but never the capture's to keep.
				c.fr.pos = s
				if s > c.fr.start {
					if err := c.send(c.fr.unit()); err != nil {
						return true, err
					}
					c.fr.discard()
				}
				c.fr.pos = e
				if err := c.forwardAuthResponse(s, e); err != nil {
					return true, err
				}
			}
		}
		if c.fr.pos > c.fr.start {
			if terminate {
				c.markTerminated()
			}
			if err := c.send(c.fr.unit()); err != nil {
				return true, err
			}
			c.fr.discard()
		}
		return terminate, nil
	}
	// Whole messages may already be buffered: forward them before reading.
	if stop, err := send(); stop || err != nil {
		return c.endStream(terminate, err)
	}
	return c.endStream(terminate, readFramed(c.client, c.fr, send))
}

func (c *conn) endStream(terminated bool, err error) error {
	if terminated && err == nil {
		return c.terminate(false)
	}
	return err
}

// readFramedConn is readFramed through net.Conn's Read.
func readFramedConn(c net.Conn, fr *framer, handle func() (bool, error)) error {
	for {
		p, err := fr.space()
		if err != nil {
			return err
		}
		n, err := c.Read(p)
		fr.filled(n)
		if n > 0 {
			if stop, herr := handle(); stop || herr != nil {
				return herr
			}
		}
		if err != nil {
			if err == io.EOF && fr.end > fr.pos {
				return io.ErrUnexpectedEOF
			}
			return err
		}
	}
}

package netproxy

import "io"

// forwardAll is the client-reading loop of a passthrough proxy after the
// start-up packet. Authentication responses are forwarded (and recorded
// redacted) one by one, as with a gate. Afterwards every whole message
// already read goes upstream in one write and one record: one read from the
// client, one write to the server, whatever the client pipelines. Messages
// are never split, so a record always holds whole messages.
func (c *conn) forwardAll() error {
	for {
		typ, s, e, err := c.fr.next()
		if err != nil {
			if err == io.EOF && !c.attached() && !c.answered && c.plusOffered.Load() {
				return c.fail(ErrChannelBinding)
			}
			return err
		}
		if !c.attached() {
			if typ == 'p' {
				if err := c.forwardAuthResponse(s, e); err != nil {
					return err
				}
				continue
			}
			select {
			case <-c.readyCh:
			case <-c.pumped:
				return errServerGone
			}
		}
		terminate := typ == 'X'
		for !terminate && c.fr.complete() {
			if typ, _, _, err = c.fr.next(); err != nil {
				return err
			}
			terminate = typ == 'X'
		}
		if terminate {
			c.markTerminated()
		}
		if err := c.send(c.fr.unit()); err != nil {
			return err
		}
		c.fr.discard()
		if terminate {
			return c.terminate(false)
		}
	}
}

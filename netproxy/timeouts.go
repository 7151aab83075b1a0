package netproxy

import (
	"fmt"
	"time"
)

// timeoutError is the reason a connection was closed for a timeout.
type timeoutError struct {
	kind, what string // kind: "start-up" or "idle"
	d          time.Duration
}

func (e *timeoutError) Error() string {
	return fmt.Sprintf("%s within the proxy's %s timeout of %v; the connection was closed", e.what, e.kind, e.d)
}

// Timeout reports that the error is a timeout (net.Error's convention).
func (e *timeoutError) Timeout() bool { return true }

// watch closes the connection when it takes longer than the start-up
// timeout to attach, or stays idle longer than the idle timeout. The
// returned function stops the watch.
func (c *conn) watch() (stop func()) {
	var timers []*time.Timer
	d := c.p.cfg.StartupTimeout
	if d == 0 {
		d = DefaultStartupTimeout
	}
	if d > 0 {
		timers = append(timers, time.AfterFunc(d, func() {
			if !c.authDone.Load() {
				c.abort(&timeoutError{kind: "start-up", what: "the client did not complete start-up and authentication", d: d})
			}
		}))
	}
	if idle := c.p.cfg.IdleTimeout; idle > 0 {
		c.touch()
		var t *time.Timer
		t = time.AfterFunc(idle, func() {
			since := time.Since(time.Unix(0, c.lastActive.Load()))
			if since >= idle {
				c.abort(&timeoutError{kind: "idle", what: "nothing moved through the connection", d: idle})
				return
			}
			t.Reset(idle - since)
		})
		timers = append(timers, t)
	}
	return func() {
		for _, t := range timers {
			t.Stop()
		}
	}
}

// touch notes that bytes moved, for the idle timeout.
func (c *conn) touch() {
	if c.p.cfg.IdleTimeout > 0 {
		c.lastActive.Store(time.Now().UnixNano())
	}
}

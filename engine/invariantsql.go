package engine

import (
	"context"
	"io"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/pginterleave/interleave/capture"
)

// controlTap records what the control connection sends (after TLS, as
// pgproto3 writes it), so that the reduction learns which statements the
// invariant ran: an invariant that reads a relation whole may see the
// order the heap keeps its rows in (observePlacement).
type controlTap struct {
	mu    sync.Mutex
	buf   []byte
	stmts *capture.Statements
}

type tapWriter struct {
	w   io.Writer
	tap *controlTap
}

func (t tapWriter) Write(b []byte) (int, error) {
	t.tap.mu.Lock()
	t.tap.buf = append(t.tap.buf, b...)
	t.tap.mu.Unlock()
	return t.w.Write(b)
}

// connectControl opens a control connection with a tap on what it sends.
func connectControl(ctx context.Context, connString string) (*pgx.Conn, *controlTap, error) {
	cfg, err := pgx.ParseConfig(connString)
	if err != nil {
		return nil, nil, err
	}
	// The invariant's scans must not start where an actor's stopped
	// (syncScansOff).
	cfg.RuntimeParams["synchronize_seqscans"] = "off"
	tap := &controlTap{stmts: capture.NewStatements()}
	cfg.BuildFrontend = func(r io.Reader, w io.Writer) *pgproto3.Frontend {
		return pgproto3.NewFrontend(r, tapWriter{w: w, tap: tap})
	}
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	tap.take() // the start-up message has no type byte
	return c, tap, nil
}

// take returns what was sent since the last take.
func (t *controlTap) take() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	t.buf = nil
	return b
}

// invariantSQL runs f (the invariant) and returns the statements it sent
// on the control connection; known is false when one of them is not known
// (a portal of a statement prepared before the tap saw it, a function
// call).
func (t *controlTap) invariantSQL(f func() error) (sql []string, known bool, err error) {
	if t == nil {
		return nil, false, f()
	}
	// Whatever the connection sent before (setup, the reduction's own
	// queries) names statements the invariant may execute again.
	t.stmts.Unit(t.take())
	err = f()
	u := t.stmts.Unit(t.take())
	known = !u.FunctionCall
	for _, s := range u.Executed {
		if s == "" {
			known = false
		}
	}
	return u.Executed, known, err
}

package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave/netproxy"
	"github.com/pginterleave/interleave/pgserver"
	"github.com/pginterleave/interleave/sched"
)

// openGate is the gate doctor puts in front of its connections: it
// releases every unit at once and counts what the proxy reports, so that a
// check can tell the query went through the gate and completed.
type openGate struct {
	mu        sync.Mutex
	pids      []uint32
	released  int
	completed int
	txStatus  byte
}

func (g *openGate) Attach(info netproxy.ConnInfo) (netproxy.ConnGate, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pids = append(g.pids, info.BackendPID)
	return g, nil
}
func (g *openGate) Cancel(uint32, bool)    {}
func (g *openGate) Starting(int)           {}
func (g *openGate) StartFailed(int, error) {}
func (g *openGate) Closed(error)           {}
func (g *openGate) Await(context.Context, *netproxy.Unit) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.released++
	return nil
}
func (g *openGate) Complete(r *netproxy.Result) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.completed++
	g.txStatus = r.TxStatus
}

// gatedProxy listens for one session; tlsVersion reports what the upstream
// side negotiated.
type gatedProxy struct {
	*netproxy.Proxy
	gate       *openGate
	mu         sync.Mutex
	tlsVersion string
}

func listenGated(srv pgserver.Server) (*gatedProxy, error) {
	gp := &gatedProxy{gate: &openGate{}}
	ep := srv.Endpoint()
	p, err := netproxy.Listen(netproxy.Config{
		Gate: gp.gate,
		Dial: func(ctx context.Context) (net.Conn, error) {
			c, err := ep.Dial(ctx)
			if tc, ok := c.(*tls.Conn); ok && err == nil {
				gp.mu.Lock()
				gp.tlsVersion = tls.VersionName(tc.ConnectionState().Version)
				gp.mu.Unlock()
			}
			return c, err
		},
	})
	if err != nil {
		return nil, err
	}
	gp.Proxy = p
	return gp, nil
}

// connString points at the proxy, with the credentials actors present.
func (gp *gatedProxy) connString(srv pgserver.Server, db string) string {
	u := url.URL{Scheme: "postgres", User: url.UserPassword(srv.User(), srv.Password()),
		Host: "127.0.0.1:" + strconv.Itoa(gp.Addr().Port), Path: "/" + db, RawQuery: "sslmode=disable"}
	return u.String()
}

// roundTrip is what the proxy round trip saw.
type roundTrip struct {
	addr                string
	released, completed int
	txStatus            byte
	elapsed             time.Duration
	tlsVersion          string
}

func (r roundTrip) describe() string {
	return fmt.Sprintf("a query went through a gated proxy at %s and completed in %v: %d units released, %d completed, the last one at ReadyForQuery (status %q)",
		r.addr, r.elapsed.Round(10*time.Microsecond), r.released, r.completed, string(r.txStatus))
}

// proxyRoundTrip connects through a gated proxy, as an actor does, and
// checks that a query's answer comes back and the proxy saw it complete.
func proxyRoundTrip(ctx context.Context, srv pgserver.Server, db string) (roundTrip, error) {
	var rt roundTrip
	gp, err := listenGated(srv)
	if err != nil {
		return rt, err
	}
	defer gp.Close()
	rt.addr = gp.Addr().String()
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	conn, err := pgx.Connect(cctx, gp.connString(srv, db))
	if err != nil {
		return rt, fmt.Errorf("connect through the proxy at %s: %s", rt.addr, pgserver.RedactURLError(err))
	}
	defer conn.Close(context.Background())
	start := time.Now()
	var answer int
	if err := conn.QueryRow(cctx, "SELECT $1::int + 1", 41).Scan(&answer); err != nil {
		return rt, fmt.Errorf("a query through the proxy at %s: %w", rt.addr, err)
	}
	rt.elapsed = time.Since(start)
	if answer != 42 {
		return rt, fmt.Errorf("the query through the proxy answered %d, want 42", answer)
	}
	g := gp.gate
	g.mu.Lock()
	rt.released, rt.completed, rt.txStatus = g.released, g.completed, g.txStatus
	g.mu.Unlock()
	gp.mu.Lock()
	rt.tlsVersion = gp.tlsVersion
	gp.mu.Unlock()
	if rt.released == 0 || rt.completed < rt.released || rt.txStatus != 'I' {
		return rt, fmt.Errorf("the proxy at %s saw %d units released and %d completed (status %q): completions are not reported, so the scheduler would wait forever", rt.addr, rt.released, rt.completed, string(rt.txStatus))
	}
	return rt, nil
}

// lockWait has two proxied sessions contend for a table lock and asks
// PostgreSQL, as the scheduler's monitor does, whether the second waits on
// the first.
func lockWait(ctx context.Context, srv pgserver.Server, db string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	setup, err := directConn(ctx, srv, db)
	if err != nil {
		return "", err
	}
	defer setup.Close(context.Background())
	if _, err := setup.Exec(ctx, "CREATE TABLE doctor_lock (id int)"); err != nil {
		return "", fmt.Errorf("create a table: %w", err)
	}
	var sessions [2]*pgx.Conn
	for i := range sessions {
		gp, err := listenGated(srv)
		if err != nil {
			return "", err
		}
		defer gp.Close()
		if sessions[i], err = pgx.Connect(ctx, gp.connString(srv, db)); err != nil {
			return "", fmt.Errorf("connect through a proxy: %s", pgserver.RedactURLError(err))
		}
		defer sessions[i].Close(context.Background())
	}
	holder, waiter := sessions[0], sessions[1]
	holderPID, waiterPID := holder.PgConn().PID(), waiter.PgConn().PID()
	tx, err := holder.Begin(ctx)
	if err != nil {
		return "", err
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(ctx, "LOCK TABLE doctor_lock IN ACCESS EXCLUSIVE MODE"); err != nil {
		return "", fmt.Errorf("take a table lock: %w", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := waiter.Exec(ctx, "SELECT count(*) FROM doctor_lock")
		done <- err
	}()
	mon, err := sched.NewPGMonitor(ctx, srv.ConnString(db))
	if err != nil {
		return "", err
	}
	defer mon.Close(context.Background())
	start := time.Now()
	seen, err := awaitWait(ctx, mon, waiterPID, holderPID)
	if err != nil {
		return "", err
	}
	if err := tx.Commit(ctx); err != nil {
		return "", err
	}
	select {
	case err := <-done:
		if err != nil {
			return "", fmt.Errorf("the waiting session failed after the lock was released: %w", err)
		}
	case <-ctx.Done():
		return "", fmt.Errorf("the waiting session did not finish after the lock was released")
	}
	return fmt.Sprintf("session %d waited on session %d's table lock; the monitor saw it through pg_isolation_test_session_is_blocked after %v and %d polls; it completed once the lock was released",
		waiterPID, holderPID, time.Since(start).Round(10*time.Microsecond), seen), nil
}

// awaitWait polls until PostgreSQL reports waiter blocked by holder,
// backing off from 100µs as the scheduler does.
func awaitWait(ctx context.Context, mon *sched.PGMonitor, waiter, holder uint32) (int, error) {
	pause := 100 * time.Microsecond
	for polls := 1; ; polls++ {
		waits, err := mon.Waits(ctx, []uint32{waiter}, []uint32{holder, waiter})
		if err != nil {
			return polls, err
		}
		for _, w := range waits {
			if w.PID == waiter && w.ByActors {
				return polls, nil
			}
		}
		select {
		case <-ctx.Done():
			return polls, fmt.Errorf("PostgreSQL never reported session %d waiting on session %d (%d polls): the scheduler could not tell a lock wait from a slow command", waiter, holder, polls)
		case <-time.After(pause):
		}
		if pause < 20*time.Millisecond {
			pause *= 2
		}
	}
}

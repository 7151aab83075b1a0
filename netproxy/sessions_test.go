package netproxy

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave/internal/testkit/poll"
)

// sessionProxy is a proxy over the test server that keeps sessions in s,
// giving each connection opts.
func sessionProxy(t *testing.T, s *Sessions, opts string) *Proxy {
	t.Helper()
	ep := server.Endpoint()
	p, err := Listen(Config{
		Dial: func(ctx context.Context) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, ep.Network, ep.Address)
		},
		Gate:     &recordingGate{},
		Sessions: s,
		Options:  opts,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func connectPID(t *testing.T, p *Proxy) (*pgx.Conn, uint32) {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, proxyURL(p, "sslmode=disable"))
	if err != nil {
		t.Fatal(err)
	}
	var pid uint32
	if err := c.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	if pid != c.PgConn().PID() {
		t.Fatalf("pg_backend_pid() %d, BackendKeyData %d", pid, c.PgConn().PID())
	}
	return c, pid
}

// closeAndWait closes c and the proxy p, so that whatever p does with the
// session is done.
func closeAndWait(t *testing.T, c *pgx.Conn, p *Proxy) {
	t.Helper()
	if err := c.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The proxy ends the connection on its own (a kept session after its
	// DISCARD ALL round trip); Close would abort one still parking after
	// closeGrace, which a loaded machine can exceed (the full suite of 3
	// December on PostgreSQL 18: "want one kept").
	poll.Until(t, "the proxy to end the closed client's connection", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return len(p.conns) == 0
	})
	p.Close()
}

// TestKeptSessionIsResetAndReused: a session whose client ends cleanly is
// kept, and the next client with the same start-up gets it back with
// nothing of the first client's state: settings, prepared statements,
// temporary tables, advisory locks, LISTEN, sequences' currval.
func TestKeptSessionIsResetAndReused(t *testing.T) {
	ctx := context.Background()
	s := NewSessions(0)
	defer s.Close()

	p1 := sessionProxy(t, s, "")
	c1, pid1 := connectPID(t, p1)
	for _, q := range []string{
		"SET application_name = 'first'",
		"SET search_path = pg_catalog",
		"SET statement_timeout = '17s'",
		"PREPARE kept AS SELECT 1",
		"CREATE TEMP TABLE leftover (a int)",
		"SELECT pg_advisory_lock(4242)",
		"LISTEN leftover_channel",
		"CREATE TEMP SEQUENCE leftover_seq",
		"SELECT nextval('leftover_seq')",
		"SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE",
	} {
		if _, err := c1.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	closeAndWait(t, c1, p1)
	if st := s.Stats(); st.Kept != 1 || st.Idle != 1 {
		t.Fatalf("after a clean close: %+v, want one kept", st)
	}
	if got := s.Pids(); len(got) != 1 || got[0] != pid1 {
		t.Fatalf("Pids %v, want [%d]", got, pid1)
	}

	p2 := sessionProxy(t, s, "")
	c2, pid2 := connectPID(t, p2)
	if pid2 != pid1 {
		t.Fatalf("second client got backend %d, want the kept %d", pid2, pid1)
	}
	if st := s.Stats(); st.Reused != 1 || st.Idle != 0 {
		t.Fatalf("after reuse: %+v", st)
	}
	var app, path, timeout, iso string
	var prepared, temps, locks int
	err := c2.QueryRow(ctx, `SELECT current_setting('application_name'), current_setting('search_path'),
		current_setting('statement_timeout'), current_setting('default_transaction_isolation'),
		(SELECT count(*) FROM pg_prepared_statements WHERE name = 'kept'),
		(SELECT count(*) FROM pg_class WHERE relpersistence = 't'),
		(SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid())`).
		Scan(&app, &path, &timeout, &iso, &prepared, &temps, &locks)
	if err != nil {
		t.Fatal(err)
	}
	if app != "" || path != `"$user", public` || timeout != "0" || iso != "read committed" || prepared != 0 || temps != 0 || locks != 0 {
		t.Fatalf("the kept session carried state: application_name %q search_path %q statement_timeout %q isolation %q prepared %d temp relations %d advisory locks %d",
			app, path, timeout, iso, prepared, temps, locks)
	}
	var listening int
	if err := c2.QueryRow(ctx, "SELECT count(*) FROM pg_listening_channels()").Scan(&listening); err != nil || listening != 0 {
		t.Fatalf("listening channels %d (%v), want 0", listening, err)
	}
	// The driver's own prepared statements (pgx names them by their text)
	// work again on the reused session.
	var n int
	if err := c2.QueryRow(ctx, "SELECT $1::int * 2", 21).Scan(&n); err != nil || n != 42 {
		t.Fatalf("query on the reused session: %d %v", n, err)
	}
	closeAndWait(t, c2, p2)
	if st := s.Stats(); st.Kept != 2 || st.Idle != 1 {
		t.Fatalf("after the second clean close: %+v", st)
	}
}

// TestSessionsThatMustNotBeKept: a client that ends inside a transaction,
// a session with other start-up options, a backend terminated while kept,
// and a session a CancelRequest was routed to are never handed out.
func TestSessionsThatMustNotBeKept(t *testing.T) {
	ctx := context.Background()

	t.Run("open transaction", func(t *testing.T) {
		s := NewSessions(0)
		defer s.Close()
		p := sessionProxy(t, s, "")
		c, _ := connectPID(t, p)
		if _, err := c.Exec(ctx, "BEGIN"); err != nil {
			t.Fatal(err)
		}
		closeAndWait(t, c, p)
		if st := s.Stats(); st.Kept != 0 {
			t.Fatalf("a session closed inside a transaction was kept: %+v", st)
		}
	})

	t.Run("other options", func(t *testing.T) {
		s := NewSessions(0)
		defer s.Close()
		p := sessionProxy(t, s, "-c lock_timeout=5s")
		c, pid := connectPID(t, p)
		closeAndWait(t, c, p)
		p2 := sessionProxy(t, s, "-c lock_timeout=6s")
		c2, pid2 := connectPID(t, p2)
		var v string
		if err := c2.QueryRow(ctx, "SHOW lock_timeout").Scan(&v); err != nil || v != "6s" {
			t.Fatalf("lock_timeout %q (%v), want 6s", v, err)
		}
		if pid2 == pid {
			t.Fatal("a session started with other options was handed out")
		}
		closeAndWait(t, c2, p2)
	})

	t.Run("terminated while kept", func(t *testing.T) {
		s := NewSessions(0)
		defer s.Close()
		p := sessionProxy(t, s, "")
		c, pid := connectPID(t, p)
		closeAndWait(t, c, p)
		admin, err := pgx.Connect(ctx, server.ConnString("postgres"))
		if err != nil {
			t.Fatal(err)
		}
		defer admin.Close(ctx)
		// pg_terminate_backend's timeout argument is PostgreSQL 14's:
		// terminate, then wait for the backend to go.
		if _, err := admin.Exec(ctx, "SELECT pg_terminate_backend($1::int)", int32(pid)); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(2 * time.Millisecond) {
			var n int
			if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE pid = $1", int32(pid)).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("backend %d still there 10 s after pg_terminate_backend", pid)
			}
		}
		p2 := sessionProxy(t, s, "")
		c2, pid2 := connectPID(t, p2)
		if pid2 == pid {
			t.Fatal("a terminated backend was handed out")
		}
		closeAndWait(t, c2, p2)
		if st := s.Stats(); st.Reused != 0 {
			t.Fatalf("%+v", st)
		}
	})

	t.Run("cancelled", func(t *testing.T) {
		s := NewSessions(0)
		defer s.Close()
		p := sessionProxy(t, s, "")
		c, _ := connectPID(t, p)
		// A CancelRequest for the idle session: PostgreSQL ignores it, the
		// proxy routes it, and the session must not be kept.
		if err := c.PgConn().CancelRequest(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Exec(ctx, "SELECT 1"); err != nil {
			t.Fatalf("the connection after the cancel: %v", err)
		}
		g := p.cfg.Gate.(*recordingGate)
		g.mu.Lock()
		routed := len(g.cancels) == 1 && g.cancels[0]
		g.mu.Unlock()
		if !routed {
			t.Fatal("the CancelRequest was not routed to the backend")
		}
		closeAndWait(t, c, p)
		if st := s.Stats(); st.Idle != 0 {
			t.Fatalf("a session a cancel was routed to was kept: %+v", st)
		}
	})
}

// TestSweepEndsSessionsNobodyTook: a kept session survives one Sweep (the
// attempt that left it) and is ended by the next.
func TestSweepEndsSessionsNobodyTook(t *testing.T) {
	s := NewSessions(0)
	defer s.Close()
	p := sessionProxy(t, s, "")
	c, pid := connectPID(t, p)
	closeAndWait(t, c, p)
	s.Sweep()
	if st := s.Stats(); st.Idle != 1 {
		t.Fatalf("after one sweep: %+v", st)
	}
	s.Sweep()
	if st := s.Stats(); st.Idle != 0 {
		t.Fatalf("after two sweeps: %+v", st)
	}
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, server.ConnString("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	deadline := time.Now().Add(10 * time.Second)
	for {
		var n int
		if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE pid = $1", int32(pid)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("backend %d of a swept session is still there", pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

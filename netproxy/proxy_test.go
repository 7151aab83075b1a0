package netproxy

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/pginterleave/interleave/internal/testkit/pgtest"
	"github.com/pginterleave/interleave/internal/testkit/poll"
	"github.com/pginterleave/interleave/pgserver"
)

var server *pgserver.Local

func TestMain(m *testing.M) { pgtest.Main(m, &server, pgserver.LocalOptions{}) }

// recordingGate releases every unit at once and keeps what it saw.
type recordingGate struct {
	mu      sync.Mutex
	units   []string // kind:types
	results []string // tags/sqlstate/txstatus
	cancels []bool
	closed  []error
}

func (g *recordingGate) Attach(ConnInfo) (ConnGate, error) { return g, nil }
func (g *recordingGate) Starting(int)                      {}
func (g *recordingGate) StartFailed(int, error)            {}
func (g *recordingGate) Cancel(_ uint32, fwd bool) {
	g.mu.Lock()
	g.cancels = append(g.cancels, fwd)
	g.mu.Unlock()
}
func (g *recordingGate) Await(_ context.Context, u *Unit) error {
	g.mu.Lock()
	g.units = append(g.units, u.Kind.String()+":"+string(u.Types))
	g.mu.Unlock()
	return nil
}
func (g *recordingGate) Complete(r *Result) {
	g.mu.Lock()
	g.results = append(g.results, fmt.Sprintf("%s|%s|%c", strings.ReplaceAll(string(r.Tags), "\x00", ","), r.SQLState, r.TxStatus))
	g.mu.Unlock()
}
func (g *recordingGate) Closed(err error) {
	g.mu.Lock()
	g.closed = append(g.closed, err)
	g.mu.Unlock()
}

func startProxy(t *testing.T, g Gate, profile Profile) *Proxy {
	t.Helper()
	ep := server.Endpoint()
	p, err := Listen(Config{
		Dial: func(ctx context.Context) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, ep.Network, ep.Address)
		},
		Gate:    g,
		Profile: profile,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func proxyURL(p *Proxy, extra string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?%s", p.Addr().Port, extra)
}

func TestProxyFramesDriverTrafficIntoUnits(t *testing.T) {
	g := &recordingGate{}
	p := startProxy(t, g, ProfileSyncCycle)
	ctx := context.Background()
	c, err := pgx.Connect(ctx, proxyURL(p, "sslmode=prefer")) // SSLRequest first: answered 'N'
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := c.QueryRow(ctx, "SELECT $1::int + 1", 41).Scan(&n); err != nil || n != 42 {
		t.Fatalf("query through the proxy: %v %d", err, n)
	}
	if _, err := c.Exec(ctx, "CREATE TEMP TABLE x (a int)", pgx.QueryExecModeSimpleProtocol); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CopyFrom(ctx, pgx.Identifier{"x"}, []string{"a"}, pgx.CopyFromRows([][]any{{1}, {2}, {3}})); err != nil {
		t.Fatalf("COPY FROM STDIN through the proxy: %v", err)
	}
	if _, err := c.Exec(ctx, "SELECT 1/0"); err == nil {
		t.Fatal("division by zero succeeded")
	}
	c.Close(ctx)
	p.Close()

	g.mu.Lock()
	defer g.mu.Unlock()
	got := strings.Join(g.units, " ")
	// Prepare (PDS), execute (BES), simple CREATE, COPY's prepare, COPY itself
	// with its data streamed inside the unit, the failing statement.
	for _, want := range []string{"extended:PDS", "extended:BES", "simple:Q"} {
		if !strings.Contains(got, want) {
			t.Errorf("units %q lack %q", got, want)
		}
	}
	res := strings.Join(g.results, " ")
	if !strings.Contains(res, "COPY 3,|") || !strings.Contains(res, "|22012|I") {
		t.Errorf("results %q lack the COPY tag or the error's SQLSTATE", res)
	}
	if len(g.closed) != 1 || g.closed[0] != nil {
		t.Errorf("closed %v, want one orderly close", g.closed)
	}
}

func TestProxyThousandConnectCloseCycles(t *testing.T) {
	g := &recordingGate{}
	p := startProxy(t, g, ProfileSyncCycle)
	ctx := context.Background()
	cfg, err := pgconn.ParseConfig(proxyURL(p, "sslmode=disable"))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1000; i++ {
		c, err := pgconn.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatalf("cycle %d: %v", i, err)
		}
		if i%2 == 0 {
			if _, err := c.Exec(ctx, "SELECT 1").ReadAll(); err != nil {
				t.Fatalf("cycle %d: %v", i, err)
			}
			c.Close(ctx) // Terminate
		} else {
			c.Conn().Close() // abrupt close, no Terminate
		}
	}
	poll.Until(t, "every proxied connection to close after 1000 cycles", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return len(p.conns) == 0
	})
}

func TestProxyRoutesOnlyOwnCancelRequests(t *testing.T) {
	g := &recordingGate{}
	p := startProxy(t, g, ProfileSyncCycle)
	ctx := context.Background()
	cfg, err := pgx.ParseConfig(proxyURL(p, "sslmode=disable"))
	if err != nil {
		t.Fatal(err)
	}
	// Cancel in place (the default closes the connection, after also sending
	// a CancelRequest).
	cfg.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, DeadlineDelay: 10 * time.Second}
	}
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	qctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err = c.Exec(qctx, "SELECT pg_sleep(30)")
	cancel()
	if err == nil {
		t.Fatal("pg_sleep(30) returned within 300ms")
	}
	// pgx reports the context error; the connection is still usable only if
	// PostgreSQL cancelled the statement (57014) rather than kept sleeping.
	fctx, fcancel := context.WithTimeout(ctx, 5*time.Second)
	defer fcancel()
	if _, err := c.Exec(fctx, "SELECT 1"); err != nil {
		t.Fatalf("after the cancel the connection is not usable: %v", err)
	}
	// A forged request for the same backend with a wrong key is recorded but
	// not forwarded.
	raw, err := net.Dial("tcp", p.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	buf, _ := (&pgproto3.CancelRequest{ProcessID: c.PgConn().PID(), SecretKey: []byte{1, 2, 3, 4}}).Encode(nil)
	raw.Write(buf)
	raw.Close()
	poll.Until(t, "the forged cancel request to be recorded", func() bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		return len(g.cancels) >= 2
	})
	g.mu.Lock()
	defer g.mu.Unlock()
	if fmt.Sprint(g.cancels) != "[true false]" {
		t.Fatalf("cancel requests forwarded: %v; want the driver's forwarded and the forged one refused", g.cancels)
	}
}

// rawConn speaks the protocol directly, for messages drivers rarely send.
func rawConn(t *testing.T, p *Proxy, params map[string]string) (*pgproto3.Frontend, net.Conn) {
	t.Helper()
	nc, err := net.Dial("tcp", p.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	fe := pgproto3.NewFrontend(nc, nc)
	if params == nil {
		params = map[string]string{"user": "postgres", "database": "postgres"}
	}
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: params})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	return fe, nc
}

func readUntil(t *testing.T, fe *pgproto3.Frontend, want func(pgproto3.BackendMessage) bool) pgproto3.BackendMessage {
	t.Helper()
	for {
		m, err := fe.Receive()
		if err != nil {
			t.Fatalf("receive: %v", err)
		}
		if want(m) {
			return m
		}
	}
}

func TestProxyFailsFlushExplicitly(t *testing.T) {
	g := &recordingGate{}
	p := startProxy(t, g, ProfileSyncCycle)
	fe, _ := rawConn(t, p, nil)
	readUntil(t, fe, func(m pgproto3.BackendMessage) bool { _, ok := m.(*pgproto3.ReadyForQuery); return ok })
	fe.Send(&pgproto3.Parse{Query: "select 1"})
	fe.Send(&pgproto3.Flush{})
	fe.Flush()
	m := readUntil(t, fe, func(m pgproto3.BackendMessage) bool { _, ok := m.(*pgproto3.ErrorResponse); return ok })
	if e := m.(*pgproto3.ErrorResponse); !strings.Contains(e.Message, "Options.Proxy.Protocol flush-stages") {
		t.Fatalf("error %q does not name the profile to use", e.Message)
	}
	if _, err := fe.Receive(); err == nil {
		t.Fatal("the connection stayed open after the failure")
	}
}

func TestProxyRefusesReplication(t *testing.T) {
	p := startProxy(t, &recordingGate{}, ProfileSyncCycle)
	fe, _ := rawConn(t, p, map[string]string{"user": "postgres", "database": "postgres", "replication": "database"})
	m := readUntil(t, fe, func(m pgproto3.BackendMessage) bool { _, ok := m.(*pgproto3.ErrorResponse); return ok })
	if !strings.Contains(m.(*pgproto3.ErrorResponse).Message, "COPY BOTH") {
		t.Fatalf("error %q", m.(*pgproto3.ErrorResponse).Message)
	}
}

// TestFlushStagesProfile drives pgconn's pipeline the way applications do
// when they need results before deciding what to send next: each
// Flush-terminated stage is a unit that completes when its responses have
// arrived, an error ends a stage, and the server's skip to Sync is followed.
func TestFlushStagesProfile(t *testing.T) {
	g := &recordingGate{}
	p := startProxy(t, g, ProfileFlushStages)
	ctx := context.Background()
	pc, err := pgconn.Connect(ctx, proxyURL(p, "sslmode=disable"))
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close(ctx)
	pl := pc.StartPipeline(ctx)
	stage := func(sql string) (string, error) {
		pl.SendQueryParams(sql, nil, nil, nil, nil)
		pl.SendFlushRequest()
		if err := pl.Flush(); err != nil {
			return "", err
		}
		res, err := pl.GetResults()
		if err != nil {
			return "", err
		}
		rr, ok := res.(*pgconn.ResultReader)
		if !ok {
			return "", fmt.Errorf("got %T", res)
		}
		r := rr.Read()
		if r.Err != nil {
			return "", r.Err
		}
		return string(r.Rows[0][0]), nil
	}
	if v, err := stage("select 41 + 1"); err != nil || v != "42" {
		t.Fatalf("first stage: %q %v", v, err)
	}
	if v, err := stage("select 'second'"); err != nil || v != "second" {
		t.Fatalf("second stage: %q %v", v, err)
	}
	if _, err := stage("select 1/0"); err == nil || !strings.Contains(err.Error(), "division by zero") {
		t.Fatalf("failing stage: %v", err)
	}
	if err := pl.Sync(); err != nil {
		t.Fatal(err)
	}
	if res, err := pl.GetResults(); err != nil {
		t.Fatalf("sync after the error: %v", err)
	} else if _, ok := res.(*pgconn.PipelineSync); !ok {
		t.Fatalf("sync after the error: got %T", res)
	}
	if err := pl.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := pc.Exec(ctx, "select 1").ReadAll(); err != nil {
		t.Fatalf("the connection is not usable after the pipeline: %v", err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	got := strings.Join(g.units, " ")
	if want := "stage:PBDEH stage:PBDEH stage:PBDEH extended:S simple:Q"; got != want {
		t.Fatalf("units %q, want %q", got, want)
	}
	if res := strings.Join(g.results, " "); !strings.Contains(res, "|22012|") {
		t.Fatalf("the failing stage's SQLSTATE is not recorded: %s", res)
	}
}

// TestExtendedProtocolPaths drives the extended protocol message by message:
// named statements and portals, Describe of both, portal suspension across
// units inside a transaction, Close, and an error in the middle of a cycle
// (the server skips to Sync). Every cycle must be one unit, answered whole.
func TestExtendedProtocolPaths(t *testing.T) {
	for _, profile := range []Profile{ProfileSyncCycle, ProfileFlushStages} {
		g := &recordingGate{}
		p := startProxy(t, g, profile)
		fe, _ := rawConn(t, p, nil)
		until := func(what string, match func(pgproto3.BackendMessage) bool) []pgproto3.BackendMessage {
			t.Helper()
			var got []pgproto3.BackendMessage
			for {
				m, err := fe.Receive()
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				got = append(got, m)
				if match(m) {
					return got
				}
			}
		}
		isZ := func(m pgproto3.BackendMessage) bool { _, ok := m.(*pgproto3.ReadyForQuery); return ok }
		until("start-up", isZ)
		send := func(msgs ...pgproto3.FrontendMessage) {
			for _, m := range msgs {
				fe.Send(m)
			}
			if err := fe.Flush(); err != nil {
				t.Fatal(err)
			}
		}
		send(&pgproto3.Query{String: "BEGIN"})
		until("begin", isZ)
		send(&pgproto3.Parse{Name: "gen", Query: "SELECT g FROM generate_series(1, 3) g"},
			&pgproto3.Describe{ObjectType: 'S', Name: "gen"},
			&pgproto3.Bind{DestinationPortal: "cur", PreparedStatement: "gen"},
			&pgproto3.Describe{ObjectType: 'P', Name: "cur"},
			&pgproto3.Execute{Portal: "cur", MaxRows: 2}, &pgproto3.Sync{})
		msgs := until("first page", isZ)
		suspended, rows := false, 0
		for _, m := range msgs {
			switch m.(type) {
			case *pgproto3.PortalSuspended:
				suspended = true
			case *pgproto3.DataRow:
				rows++
			}
		}
		if !suspended || rows != 2 {
			t.Fatalf("%s: first page: suspended %v, %d rows", profile, suspended, rows)
		}
		send(&pgproto3.Execute{Portal: "cur", MaxRows: 2}, &pgproto3.Sync{})
		msgs = until("second page", isZ)
		if _, ok := msgs[len(msgs)-2].(*pgproto3.CommandComplete); !ok {
			t.Fatalf("%s: the portal did not complete on the second page: %T", profile, msgs[len(msgs)-2])
		}
		send(&pgproto3.Close{ObjectType: 'P', Name: "cur"}, &pgproto3.Close{ObjectType: 'S', Name: "gen"}, &pgproto3.Sync{})
		until("close", isZ)
		// An error mid-cycle: the server skips the rest up to Sync.
		send(&pgproto3.Parse{Query: "SELECT 1/0"}, &pgproto3.Bind{}, &pgproto3.Execute{},
			&pgproto3.Parse{Query: "SELECT 2"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})
		msgs = until("error", isZ)
		if e, ok := msgs[len(msgs)-2].(*pgproto3.ErrorResponse); !ok || e.Code != "22012" || msgs[len(msgs)-1].(*pgproto3.ReadyForQuery).TxStatus != 'E' {
			t.Fatalf("%s: error mid-cycle: %v", profile, msgs)
		}
		send(&pgproto3.Query{String: "ROLLBACK"})
		until("rollback", isZ)
		send(&pgproto3.Terminate{})
		p.Close()
		g.mu.Lock()
		got := strings.Join(g.units, " ")
		g.mu.Unlock()
		if want := "simple:Q extended:PDBDES extended:ES extended:CCS extended:PBEPBES simple:Q"; got != want {
			t.Fatalf("%s: units %q, want %q", profile, got, want)
		}
	}
}

// A Flush written together with the rest of its cycle (as node-postgres 8.7
// does) is part of the cycle under the default profile.
func TestFlushFollowedBySyncIsOneUnit(t *testing.T) {
	g := &recordingGate{}
	p := startProxy(t, g, ProfileSyncCycle)
	fe, _ := rawConn(t, p, nil)
	isZ := func(m pgproto3.BackendMessage) bool { _, ok := m.(*pgproto3.ReadyForQuery); return ok }
	readUntil(t, fe, isZ)
	for _, m := range []pgproto3.FrontendMessage{&pgproto3.Parse{Query: "select 1"}, &pgproto3.Bind{}, &pgproto3.Describe{ObjectType: 'P'}, &pgproto3.Execute{}, &pgproto3.Flush{}, &pgproto3.Sync{}} {
		fe.Send(m)
	}
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	readUntil(t, fe, isZ)
	fe.Send(&pgproto3.Terminate{})
	fe.Flush()
	p.Close()
	g.mu.Lock()
	defer g.mu.Unlock()
	if got := strings.Join(g.units, " "); got != "extended:PBDEHS" {
		t.Fatalf("units %q, want one extended:PBDEHS", got)
	}
}

// Config.Options reach the backend whatever the client sends (no options,
// or options of its own, which come first and lose where both set the same
// parameter); the capture keeps the client's packet; an empty value in the
// packet does not cut the parameters after it.
func TestProxyAddsOptionsToTheStartupPacket(t *testing.T) {
	ep := server.Endpoint()
	rec := &bytesRecorder{}
	p, err := Listen(Config{
		Dial: func(ctx context.Context) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, ep.Network, ep.Address)
		},
		Gate:     &recordingGate{},
		Recorder: rec,
		Options:  "-c deadlock_timeout=1234ms",
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	ctx := context.Background()
	for _, tc := range []struct{ query, want string }{
		{"sslmode=disable", "1234ms"},
		{"sslmode=disable&options=-c%20deadlock_timeout%3D5s%20-c%20lock_timeout%3D7s&application_name=", "1234ms"},
	} {
		c, err := pgx.Connect(ctx, proxyURL(p, tc.query))
		if err != nil {
			t.Fatal(err)
		}
		var dt, lt string
		if err := c.QueryRow(ctx, "SELECT current_setting('deadlock_timeout'), current_setting('lock_timeout')").Scan(&dt, &lt); err != nil {
			t.Fatal(err)
		}
		c.Close(ctx)
		if dt != tc.want {
			t.Errorf("%s: deadlock_timeout %q, want %s", tc.query, dt, tc.want)
		}
		if strings.Contains(tc.query, "lock_timeout") && lt != "7s" {
			t.Errorf("%s: the client's own option lock_timeout is %q, want 7s", tc.query, lt)
		}
	}
	if got := rec.all(); strings.Contains(got, "1234ms") || !strings.Contains(got, "lock_timeout=7s") {
		t.Errorf("the capture of what the clients sent holds the added options or lacks their own: it should keep the client's packets")
	}
}

func TestParseStartupParamsKeepsEmptyValues(t *testing.T) {
	pkt := "user\x00alice\x00application_name\x00\x00database\x00db\x00\x00"
	got := strings.Join(parseStartupParams([]byte(pkt)), ",")
	if got != "user,alice,application_name,,database,db" {
		t.Fatalf("parsed %q", got)
	}
	b := withOptions(3<<16, parseStartupParams([]byte(pkt)), "-c x=1")
	if string(b[8:]) != "user\x00alice\x00application_name\x00\x00database\x00db\x00options\x00-c x=1\x00\x00" || int(binary.BigEndian.Uint32(b)) != len(b) {
		t.Fatalf("rebuilt %q", b)
	}
}

// bytesRecorder keeps every recorded byte the client sent.
type bytesRecorder struct {
	mu  sync.Mutex
	buf []byte
}

func (r *bytesRecorder) Bytes(_ int, dir Direction, data []byte) {
	if dir != ClientToServer {
		return
	}
	r.mu.Lock()
	r.buf = append(r.buf, data...)
	r.mu.Unlock()
}
func (r *bytesRecorder) Redacted(int, Direction, []byte, int, string) {}
func (r *bytesRecorder) Closed(int, error)                            {}
func (r *bytesRecorder) all() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return string(r.buf)
}

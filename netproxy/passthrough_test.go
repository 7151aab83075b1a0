package netproxy

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// tapConn keeps every byte a client wrote and read.
type tapConn struct {
	net.Conn
	mu          sync.Mutex
	wrote, read bytes.Buffer
}

func (t *tapConn) Write(b []byte) (int, error) {
	n, err := t.Conn.Write(b)
	t.mu.Lock()
	t.wrote.Write(b[:n])
	t.mu.Unlock()
	return n, err
}

func (t *tapConn) Read(b []byte) (int, error) {
	n, err := t.Conn.Read(b)
	t.mu.Lock()
	t.read.Write(b[:n])
	t.mu.Unlock()
	return n, err
}

// writeRecorder keeps each stream's bytes per direction and each client
// record on its own.
type writeRecorder struct {
	mu      sync.Mutex
	bytes   map[int]*[2]bytes.Buffer
	writes  [][]byte // client records, in order
	closed  map[int]error
	redacts int
}

func newWriteRecorder() *writeRecorder {
	return &writeRecorder{bytes: map[int]*[2]bytes.Buffer{}, closed: map[int]error{}}
}

func (r *writeRecorder) Bytes(stream int, dir Direction, data []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	b := r.bytes[stream]
	if b == nil {
		b = &[2]bytes.Buffer{}
		r.bytes[stream] = b
	}
	b[dir].Write(data)
	if dir == ClientToServer {
		r.writes = append(r.writes, append([]byte(nil), data...))
	}
}
func (r *writeRecorder) Redacted(int, Direction, []byte, int, string) {
	r.mu.Lock()
	r.redacts++
	r.mu.Unlock()
}
func (r *writeRecorder) Closed(stream int, err error) {
	r.mu.Lock()
	r.closed[stream] = err
	r.mu.Unlock()
}

func startPassthrough(t *testing.T, rec Recorder) *Proxy {
	t.Helper()
	ep := server.Endpoint()
	p, err := Listen(Config{
		Dial: func(ctx context.Context) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, ep.Network, ep.Address)
		},
		Passthrough: true,
		Recorder:    rec,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// TestPassthroughIsByteExact runs traffic a gated proxy refuses or splits
// (a pipeline with Flush, a batch, COPY, an error inside a pipeline) and
// checks that the proxy forwarded and recorded exactly the bytes the client
// wrote and read, each client record holding whole messages.
func TestPassthroughIsByteExact(t *testing.T) {
	rec := newWriteRecorder()
	p := startPassthrough(t, rec)
	ctx := context.Background()
	cfg, err := pgx.ParseConfig(proxyURL(p, "sslmode=disable"))
	if err != nil {
		t.Fatal(err)
	}
	var tap *tapConn
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		tap = &tapConn{Conn: c}
		return tap, err
	}
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "CREATE TEMP TABLE t (a int PRIMARY KEY, b text)"); err != nil {
		t.Fatal(err)
	}
	if n, err := c.CopyFrom(ctx, pgx.Identifier{"t"}, []string{"a", "b"}, pgx.CopyFromRows([][]any{{1, "x"}, {2, "y"}})); err != nil || n != 2 {
		t.Fatalf("COPY through the passthrough proxy: %d, %v", n, err)
	}
	b := &pgx.Batch{}
	for i := 3; i < 50; i++ {
		b.Queue("INSERT INTO t VALUES ($1, $2)", i, "z")
	}
	b.Queue("SELECT count(*) FROM t")
	if err := c.SendBatch(ctx, b).Close(); err != nil {
		t.Fatal(err)
	}
	pl := c.PgConn().StartPipeline(ctx)
	pl.SendQueryParams("SELECT 1", nil, nil, nil, nil)
	pl.SendFlushRequest()
	if err := pl.Flush(); err != nil {
		t.Fatal(err)
	}
	res, err := pl.GetResults()
	if err != nil {
		t.Fatal(err)
	}
	res.(*pgconn.ResultReader).Close()
	pl.SendQueryParams("INSERT INTO t VALUES (1, 'dup')", nil, nil, nil, nil)
	if err := pl.Sync(); err != nil {
		t.Fatal(err)
	}
	for {
		res, err := pl.GetResults()
		if err != nil || res == nil {
			break
		}
		if rr, ok := res.(*pgconn.ResultReader); ok {
			rr.Close()
		}
		if _, ok := res.(*pgconn.PipelineSync); ok {
			break
		}
	}
	pl.Close()
	var n int
	if err := c.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 49 {
		t.Fatalf("rows: %d, %v", n, err)
	}
	c.Close(ctx)
	waitClosed(t, p)

	rec.mu.Lock()
	defer rec.mu.Unlock()
	tap.mu.Lock()
	defer tap.mu.Unlock()
	if len(rec.bytes) != 1 {
		t.Fatalf("%d streams recorded, want 1", len(rec.bytes))
	}
	got := rec.bytes[0]
	if !bytes.Equal(got[ClientToServer].Bytes(), tap.wrote.Bytes()) {
		t.Errorf("client bytes: recorded %d, the client wrote %d (not equal)", got[ClientToServer].Len(), tap.wrote.Len())
	}
	if !bytes.Equal(got[ServerToClient].Bytes(), tap.read.Bytes()) {
		t.Errorf("server bytes: recorded %d, the client read %d (not equal)", got[ServerToClient].Len(), tap.read.Len())
	}
	if err, ok := rec.closed[0]; !ok || err != nil {
		t.Errorf("closed: %v %v, want an orderly close", ok, err)
	}
	for i, w := range rec.writes[1:] { // after the start-up packet
		for len(w) > 0 {
			if len(w) < 5 || int(binary.BigEndian.Uint32(w[1:]))+1 > len(w) {
				t.Fatalf("client record %d does not end on a message boundary", i+1)
			}
			w = w[binary.BigEndian.Uint32(w[1:])+1:]
		}
	}
	// The batch went upstream as pgx wrote it, many Executes per write
	// (as many as each read brought), not one Sync cycle at a time.
	batched := 0
	for _, w := range rec.writes[1:] {
		execs := 0
		for ; len(w) >= 5; w = w[binary.BigEndian.Uint32(w[1:])+1:] {
			if w[0] == 'E' {
				execs++
			}
		}
		if execs > 1 {
			batched += execs
		}
	}
	if batched < 48 {
		t.Errorf("%d Executes went upstream in writes of several; a pipelined batch of 48 must go upstream as it came", batched)
	}
}

func waitClosed(t *testing.T, p *Proxy) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		p.mu.Lock()
		open := len(p.conns)
		p.mu.Unlock()
		if open == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d proxied connections still open", open)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestPassthroughCancelAndShutdown: a cancel reaches the statement through
// the passthrough proxy, and Shutdown closes a connection still open with
// a message that says why.
func TestPassthroughCancelAndShutdown(t *testing.T) {
	rec := newWriteRecorder()
	p := startPassthrough(t, rec)
	ctx := context.Background()
	c, err := pgconn.Connect(ctx, proxyURL(p, "sslmode=disable"))
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	_, err = c.Exec(cctx, "SELECT pg_sleep(30)").ReadAll()
	var pgErr *pgconn.PgError
	if err == nil {
		t.Fatal("pg_sleep(30) was not cancelled")
	}
	if !errors.As(err, &pgErr) || pgErr.Code != "57014" {
		if !pgconn.Timeout(err) {
			t.Fatalf("cancelled statement: %v", err)
		}
	}
	c2, err := pgconn.Connect(ctx, proxyURL(p, "sslmode=disable"))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := c2.Exec(ctx, "SELECT pg_sleep(30)").ReadAll()
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	if err := p.Shutdown(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a statement survived Shutdown")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Shutdown left a statement running")
	}
}

// TestPassthroughRedactsLatePassword: a password message after
// authentication (a client bug) reaches the server, which refuses it, but
// the capture keeps only its header and length; the messages around it are
// recorded as usual.
func TestPassthroughRedactsLatePassword(t *testing.T) {
	rec := newWriteRecorder()
	p := startPassthrough(t, rec)
	fe, _ := rawConn(t, p, nil)
	readUntil(t, fe, func(m pgproto3.BackendMessage) bool { _, ok := m.(*pgproto3.ReadyForQuery); return ok })
	fe.Send(&pgproto3.Query{String: "SELECT 1"})
	fe.Send(&pgproto3.PasswordMessage{Password: "hunter2-late"})
	fe.Send(&pgproto3.Query{String: "SELECT 2"})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	readUntil(t, fe, func(m pgproto3.BackendMessage) bool { _, ok := m.(*pgproto3.ErrorResponse); return ok })
	p.Close()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	all := rec.bytes[0][ClientToServer].Bytes()
	if bytes.Contains(all, []byte("hunter2-late")) {
		t.Fatal("the capture holds the late password")
	}
	if !bytes.Contains(all, []byte("SELECT 1")) || rec.redacts != 1 {
		t.Fatalf("recorded %q with %d redactions", all, rec.redacts)
	}
}

// TestPassthroughShutdownWhileUpstreamIsFull: PostgreSQL reads nothing
// while it runs pg_sleep, so a client that pipelines megabytes behind it
// fills the server's socket and the proxy's write blocks. Shutdown must
// still end the connection promptly.
func TestPassthroughShutdownWhileUpstreamIsFull(t *testing.T) {
	p := startPassthrough(t, nil)
	fe, nc := rawConn(t, p, nil)
	readUntil(t, fe, func(m pgproto3.BackendMessage) bool { _, ok := m.(*pgproto3.ReadyForQuery); return ok })
	fe.Send(&pgproto3.Query{String: "SELECT pg_sleep(60)"})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	filler := (&pgproto3.Query{String: "SELECT '" + strings.Repeat("x", 64<<10) + "'"})
	msg, _ := filler.Encode(nil)
	go func() {
		for i := 0; i < 1024; i++ { // 64 MiB at most, far more than socket buffers hold
			if _, err := nc.Write(msg); err != nil {
				return
			}
		}
	}()
	time.Sleep(500 * time.Millisecond) // the proxy is now blocked writing upstream
	done := make(chan error, 1)
	go func() { done <- p.Shutdown() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Shutdown hung while the proxy's write to PostgreSQL was blocked")
	}
}

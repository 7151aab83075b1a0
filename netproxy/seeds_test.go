package netproxy

import (
	"bytes"
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/lib/pq"
)

var updateSeeds = flag.Bool("update-seeds", false, "rewrite the fuzz seed corpus from real driver traffic")

// streamRecorder keeps every byte per stream and direction.
type streamRecorder struct {
	mu   sync.Mutex
	data map[[2]int]*bytes.Buffer
}

func (r *streamRecorder) Bytes(stream int, dir Direction, b []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := [2]int{stream, int(dir)}
	if r.data[k] == nil {
		r.data[k] = &bytes.Buffer{}
	}
	r.data[k].Write(b)
}
func (r *streamRecorder) Redacted(int, Direction, []byte, int, string) {}
func (r *streamRecorder) Closed(int, error)                            {}

// driverWorkloads are the traffic the seeds come from: each driver and
// protocol path the compatibility matrix names.
var driverWorkloads = map[string]func(ctx context.Context, url string) error{
	"pgx-conn": func(ctx context.Context, url string) error {
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			return err
		}
		defer c.Close(ctx)
		var n int
		if err := c.QueryRow(ctx, "SELECT $1::int + 1", 1).Scan(&n); err != nil {
			return err
		}
		tx, err := c.Begin(ctx)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "CREATE TEMP TABLE s (a int, b text)"); err != nil {
			return err
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"s"}, []string{"a", "b"}, pgx.CopyFromRows([][]any{{1, "x"}, {2, "y"}})); err != nil {
			return err
		}
		b := &pgx.Batch{}
		b.Queue("SELECT count(*) FROM s")
		b.Queue("UPDATE s SET b = $1 WHERE a = $2", "z", 1)
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return err
		}
		_, _ = tx.Exec(ctx, "SELECT 1/0")
		return tx.Rollback(ctx)
	},
	"pgx-pipeline-flush": func(ctx context.Context, url string) error {
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			return err
		}
		defer c.Close(ctx)
		pl := c.PgConn().StartPipeline(ctx)
		pl.SendQueryParams("SELECT 1", nil, nil, nil, nil)
		pl.SendFlushRequest()
		if err := pl.Flush(); err != nil {
			return err
		}
		res, err := pl.GetResults()
		if err != nil {
			return err
		}
		if rr, ok := res.(*pgconn.ResultReader); ok {
			rr.Close()
		}
		if err := pl.Sync(); err != nil {
			return err
		}
		if _, err := pl.GetResults(); err != nil {
			return err
		}
		return pl.Close()
	},
	"pgxpool": func(ctx context.Context, url string) error {
		p, err := pgxpool.New(ctx, url)
		if err != nil {
			return err
		}
		defer p.Close()
		_, err = p.Exec(ctx, "SELECT $1::text", "pool")
		return err
	},
	"database-sql-pgx": func(ctx context.Context, url string) error {
		db, err := sql.Open("pgx", url)
		if err != nil {
			return err
		}
		defer db.Close()
		var s string
		return db.QueryRowContext(ctx, "SELECT $1::text", "stdlib").Scan(&s)
	},
	"lib-pq": func(ctx context.Context, url string) error {
		db, err := sql.Open("postgres", url)
		if err != nil {
			return err
		}
		defer db.Close()
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if _, err := tx.Exec("CREATE TEMP TABLE q (a int)"); err != nil {
			return err
		}
		st, err := tx.Prepare(pq.CopyIn("q", "a"))
		if err != nil {
			return err
		}
		for i := 0; i < 3; i++ {
			if _, err := st.Exec(i); err != nil {
				return err
			}
		}
		if _, err := st.Exec(); err != nil {
			return err
		}
		st.Close()
		var n int
		return tx.QueryRow("SELECT count(*) FROM q WHERE a > $1", 0).Scan(&n)
	},
}

// TestDriverSeedCorpus checks the checked-in fuzz seeds, which are real
// driver traffic captured through the proxy: every client-side seed frames
// into units without an error, and every server-side seed scans to at least
// one ReadyForQuery. With -update-seeds it captures them again.
func TestDriverSeedCorpus(t *testing.T) {
	dirC := filepath.Join("testdata", "fuzz", "FuzzFramer")
	dirS := filepath.Join("testdata", "fuzz", "FuzzBackendScanner")
	if *updateSeeds {
		rec := &streamRecorder{data: map[[2]int]*bytes.Buffer{}}
		ep := server.Endpoint()
		p, err := Listen(Config{Dial: ep.Dial, Gate: &recordingGate{}, Recorder: rec, Profile: ProfileFlushStages})
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(dirC, 0o755)
		os.MkdirAll(dirS, 0o755)
		names := make([]string, 0, len(driverWorkloads))
		for n := range driverWorkloads {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, name := range names {
			rec.mu.Lock()
			rec.data = map[[2]int]*bytes.Buffer{}
			rec.mu.Unlock()
			if err := driverWorkloads[name](context.Background(), proxyURL(p, "sslmode=disable")); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			p.CloseConns()
			rec.mu.Lock()
			for k, b := range rec.data {
				dir, file := dirC, fmt.Sprintf("%s-stream%d", name, k[0])
				content := "go test fuzz v1\n[]byte(" + strconv.Quote(b.String()) + ")\n"
				if k[1] == int(ServerToClient) {
					dir = dirS
					content = "go test fuzz v1\n[]byte(" + strconv.Quote(b.String()) + ")\nuint8(7)\n"
				}
				if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			rec.mu.Unlock()
		}
		p.Close()
	}
	for _, dir := range []string{dirC, dirS} {
		files, _ := filepath.Glob(filepath.Join(dir, "*-stream*"))
		if len(files) < len(driverWorkloads) {
			t.Fatalf("%s holds %d driver seeds; regenerate with go test -run TestDriverSeedCorpus -update-seeds ./netproxy", dir, len(files))
		}
		for _, f := range files {
			data := readSeed(t, f)
			if dir == dirC {
				checkClientSeed(t, f, data)
			} else {
				var s backendScanner
				s.scan(data)
				if len(s.events) == 0 {
					t.Errorf("%s: no ReadyForQuery in server traffic", f)
				}
			}
		}
	}
}

func readSeed(t *testing.T, path string) []byte {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitN(raw, []byte("\n"), 3)
	lit := bytes.TrimSuffix(bytes.TrimPrefix(lines[1], []byte("[]byte(")), []byte(")"))
	s, err := strconv.Unquote(string(lit))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return []byte(s)
}

// checkClientSeed frames a client stream: start-up packets first, then
// typed messages, every one accepted by the flush-stages assembler.
func checkClientSeed(t *testing.T, name string, data []byte) {
	fr := newFramer(bytes.NewReader(data), 0)
	for {
		s, e, err := fr.startup()
		if err != nil {
			t.Fatalf("%s: start-up packet: %v", name, err)
		}
		code := uint32(fr.buf[s+4])<<24 | uint32(fr.buf[s+5])<<16 | uint32(fr.buf[s+6])<<8 | uint32(fr.buf[s+7])
		_ = e
		fr.discard()
		if code == codeCancelRequest {
			return
		}
		if code != codeSSLRequest && code != codeGSSENCRequest {
			break
		}
	}
	a := assembler{profile: ProfileFlushStages}
	units := 0
	for {
		typ, _, _, err := fr.next()
		if err != nil {
			break
		}
		if typ == 'p' {
			fr.discard()
			continue
		}
		st, _, err := a.feed(typ)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if st != stepAccumulate {
			units++
			fr.discard()
			a.reset()
		}
	}
	if units == 0 {
		t.Errorf("%s: no release unit", name)
	}
}

package bench

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/lib/pq"
)

// appLog is what an application actor saw, as deterministic text.
type appLog struct{ parts []string }

func (l *appLog) add(format string, a ...any) { l.parts = append(l.parts, fmt.Sprintf(format, a...)) }
func (l *appLog) out() any                    { return strings.Join(l.parts, " | ") }

// errCode is an error's SQLSTATE (pgx or lib/pq), or its text.
func errCode(err error) string {
	if err == nil {
		return "ok"
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	var qe *pq.Error
	if errors.As(err, &qe) {
		return string(qe.Code)
	}
	return "err"
}

// pgxInt runs a one-value query on a pgx connection: the value, or -1 for
// no row; err for an error.
func pgxInt(ctx context.Context, c *pgx.Conn, q string, args ...any) (int, error) {
	var v int
	err := c.QueryRow(ctx, q, args...).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return -1, nil
	}
	return v, err
}

func pgxExec(ctx context.Context, c *pgx.Conn, q string, args ...any) (int64, error) {
	t, err := c.Exec(ctx, q, args...)
	return t.RowsAffected(), err
}

func sqlInt(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, s string, args ...any) (int, error) {
	var v int
	err := q.QueryRowContext(ctx, s, args...).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return -1, nil
	}
	return v, err
}

func sqlExec(ctx context.Context, q interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, s string, args ...any) (int64, error) {
	r, err := q.ExecContext(ctx, s, args...)
	if err != nil {
		return 0, err
	}
	n, _ := r.RowsAffected()
	return n, nil
}

// claimJobs is a worker that claims jobs one at a time until none is left:
// a transaction that picks the next free job (skipping locked ones),
// marks it as its own, and commits.
func claimJobs(me string, max int) func(ctx context.Context, cs string) (any, error) {
	return func(ctx context.Context, cs string) (any, error) {
		var l appLog
		c, err := pgx.Connect(ctx, cs)
		if err != nil {
			return nil, err
		}
		defer c.Close(ctx)
		for i := 0; i < max; i++ {
			if _, err := c.Exec(ctx, "BEGIN"); err != nil {
				return l.out(), err
			}
			id, err := pgxInt(ctx, c, "SELECT id FROM jobs WHERE owner IS NULL ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED")
			if err != nil {
				return l.out(), err
			}
			if id < 0 {
				c.Exec(ctx, "ROLLBACK")
				l.add("none")
				break
			}
			n, err := pgxExec(ctx, c, "UPDATE jobs SET owner = $1 WHERE id = $2", me, id)
			l.add("job %d %d %s", id, n, errCode(err))
			if _, err := c.Exec(ctx, "COMMIT"); err != nil {
				return l.out(), err
			}
		}
		return l.out(), nil
	}
}

// pgxConnect connects with pgx and returns a closer.
func pgxConnect(ctx context.Context, cs string) (*pgx.Conn, error) { return pgx.Connect(ctx, cs) }

// batchResults runs b and lists each statement's result.
func batchResults(ctx context.Context, c *pgx.Conn, b *pgx.Batch) string {
	br := c.SendBatch(ctx, b)
	var parts []string
	for i := 0; i < b.Len(); i++ {
		t, err := br.Exec()
		parts = append(parts, fmt.Sprintf("%s:%s", t.String(), errCode(err)))
	}
	err := br.Close()
	parts = append(parts, "close:"+errCode(err))
	return strings.Join(parts, ",")
}

// transferRetry moves 5 from one account to another in a transaction,
// refusing when the source has less, and retries from the start on a
// deadlock or serialization failure (at most 3 times).
func transferRetry(from, to int, iso string) func(ctx context.Context, cs string) (any, error) {
	return func(ctx context.Context, cs string) (any, error) {
		var l appLog
		c, err := pgxConnect(ctx, cs)
		if err != nil {
			return nil, err
		}
		defer c.Close(ctx)
		for try := 0; try < 3; try++ {
			err := func() error {
				if _, err := c.Exec(ctx, "BEGIN ISOLATION LEVEL "+iso); err != nil {
					return err
				}
				bal, err := pgxInt(ctx, c, "SELECT bal FROM acct WHERE id = $1", from)
				if err != nil {
					return err
				}
				l.add("bal %d", bal)
				if bal < 5 {
					if _, err := pgxExec(ctx, c, "INSERT INTO refusals VALUES ($1)", from); err != nil {
						return err
					}
				} else {
					if _, err := pgxExec(ctx, c, "UPDATE acct SET bal = bal - 5 WHERE id = $1", from); err != nil {
						return err
					}
					if _, err := pgxExec(ctx, c, "UPDATE acct SET bal = bal + 5 WHERE id = $1", to); err != nil {
						return err
					}
				}
				_, err = c.Exec(ctx, "COMMIT")
				return err
			}()
			l.add("try %d %s", try, errCode(err))
			if err == nil {
				break
			}
			c.Exec(ctx, "ROLLBACK")
			if code := errCode(err); code != "40P01" && code != "40001" {
				break
			}
		}
		return l.out(), nil
	}
}

// libpqTransfer opens a lib/pq pool of one connection and, in a REPEATABLE
// READ transaction, reads a's value and writes b only when it is 0.
func libpqBranch(ctx context.Context, cs string) (any, error) {
	var l appLog
	db, err := sql.Open("postgres", cs)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead})
	if err != nil {
		return nil, err
	}
	v, err := sqlInt(ctx, tx, "SELECT v FROM a WHERE id = $1", 1)
	l.add("a %d %s", v, errCode(err))
	if v == 0 {
		w, err := sqlInt(ctx, tx, "SELECT v FROM b WHERE id = $1", 1)
		l.add("b %d %s", w, errCode(err))
		n, err := sqlExec(ctx, tx, "UPDATE b SET v = v + 1 WHERE id = $1", 1)
		l.add("upd %d %s", n, errCode(err))
	}
	err = tx.Commit()
	l.add("commit %s", errCode(err))
	return l.out(), nil
}

// upsertUser finds or creates the user named x: a SELECT, an INSERT when
// none is there, and on a unique violation the SELECT again.
func upsertUser(ctx context.Context, cs string) (any, error) {
	var l appLog
	c, err := pgxConnect(ctx, cs)
	if err != nil {
		return nil, err
	}
	defer c.Close(ctx)
	for try := 0; try < 2; try++ {
		id, err := pgxInt(ctx, c, "SELECT id FROM users WHERE name = $1", "x")
		l.add("sel %d %s", id, errCode(err))
		if id >= 0 {
			return l.out(), nil
		}
		id, err = pgxInt(ctx, c, "INSERT INTO users (name) VALUES ($1) RETURNING id", "x")
		l.add("ins %d %s", id, errCode(err))
		if err == nil {
			return l.out(), nil
		}
	}
	return l.out(), nil
}

// reconnectSearchPath sets search_path on one connection of a database/sql
// pool that keeps no idle connection, then reads accounts on the next one.
func reconnectSearchPath(ctx context.Context, cs string) (any, error) {
	var l appLog
	db, err := sql.Open("pgx", cs)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(0)
	_, err = sqlExec(ctx, db, "SET search_path TO tenant_a, public")
	l.add("set %s", errCode(err))
	v, err := sqlInt(ctx, db, "SELECT bal FROM accounts WHERE id = 1")
	l.add("bal %d %s", v, errCode(err))
	return l.out(), nil
}

// memCache is an application's in-process cache, one per attempt database
// (each worker has its own).
type memCache struct {
	mu sync.Mutex
	m  map[string]map[string]int
}

func (c *memCache) reset(db string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]map[string]int{}
	}
	c.m[db] = map[string]int{}
}

func (c *memCache) get(cs, k string) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[dbOf(cs)][k]
	return v, ok
}

func (c *memCache) put(cs, k string, v int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m[dbOf(cs)] == nil {
		c.m[dbOf(cs)] = map[string]int{}
	}
	c.m[dbOf(cs)][k] = v
}

func dbOf(cs string) string {
	u, err := url.Parse(cs)
	if err != nil {
		return cs
	}
	return strings.TrimPrefix(u.Path, "/")
}

var appCache = &memCache{}

// pipelineResults reads every result of a pipeline whose cycles were all
// sent, then closes it.
func pipelineResults(p *pgconn.Pipeline) string {
	var parts []string
	if err := p.Flush(); err != nil {
		parts = append(parts, "flush:"+errCode(err))
	}
	for i := 0; i < 64; i++ {
		r, err := p.GetResults()
		if err != nil {
			parts = append(parts, "err:"+errCode(err))
			continue
		}
		if r == nil {
			break
		}
		switch r := r.(type) {
		case *pgconn.ResultReader:
			res := r.Read()
			var rows []string
			for _, row := range res.Rows {
				var cols []string
				for _, c := range row {
					cols = append(cols, string(c))
				}
				rows = append(rows, strings.Join(cols, "/"))
			}
			parts = append(parts, res.CommandTag.String()+"["+strings.Join(rows, ";")+"]:"+errCode(res.Err))
		case *pgconn.StatementDescription:
			parts = append(parts, "prepared")
		case *pgconn.PipelineSync:
			parts = append(parts, "sync")
		}
	}
	err := p.Close()
	parts = append(parts, "close:"+errCode(err))
	return strings.Join(parts, ",")
}

// sqlTxCancel begins a database/sql transaction (pgx stdlib, one open
// connection, no idle ping) on a context it then cancels without
// committing: database/sql rolls it back in its own goroutine. It then
// reads on the pool.
func sqlTxCancel(ctx context.Context, cs string) (any, error) {
	var l appLog
	cfg, err := pgx.ParseConfig(cs)
	if err != nil {
		return nil, err
	}
	db := stdlib.OpenDB(*cfg, stdlib.OptionShouldPing(func(context.Context, stdlib.ShouldPingParams) bool { return false }))
	defer db.Close()
	db.SetMaxOpenConns(1)
	tctx, cancel := context.WithCancel(ctx)
	tx, err := db.BeginTx(tctx, nil)
	if err != nil {
		cancel()
		return nil, err
	}
	n, err := sqlExec(tctx, tx, "UPDATE t SET v = v + 1 WHERE id = 1")
	l.add("upd %d %s", n, errCode(err))
	cancel() // no Commit
	v, err := sqlInt(ctx, db, "SELECT v FROM x WHERE id = 1")
	l.add("x %d %s", v, errCode(err))
	v, err = sqlInt(ctx, db, "SELECT v FROM t WHERE id = 1")
	l.add("t %d %s", v, errCode(err))
	return l.out(), nil
}

// sqlDeferrableReport reads r in a database/sql READ ONLY SERIALIZABLE
// transaction on a connection whose DSN makes transactions DEFERRABLE by
// default (database/sql's TxOptions have no DEFERRABLE).
func sqlDeferrableReport(ctx context.Context, cs string) (any, error) {
	var l appLog
	cfg, err := pgx.ParseConfig(cs)
	if err != nil {
		return nil, err
	}
	cfg.RuntimeParams["default_transaction_deferrable"] = "on"
	db := stdlib.OpenDB(*cfg, stdlib.OptionShouldPing(func(context.Context, stdlib.ShouldPingParams) bool { return false }))
	defer db.Close()
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelSerializable, ReadOnly: true})
	if err != nil {
		return nil, err
	}
	v, err := sqlInt(ctx, tx, "SELECT v FROM r WHERE id = 1")
	l.add("r %d %s", v, errCode(err))
	err = tx.Commit()
	l.add("commit %s", errCode(err))
	return l.out(), nil
}

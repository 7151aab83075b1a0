package bench

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// appCases are actors written as application code (review J, 5
// December): they branch on what they read, loop, retry, and use pgx,
// pgxpool, database/sql over pgx's stdlib and lib/pq (bench/appfuncs.go).
// app-client-deadline-in-hold (a client-side deadline inside another's
// hold: the engine leaves an attempt with a cancel request unjudged) and
// app-transfer-retry-deadlock (45 s) run with -large.
func appCases() []Case {
	return []Case{
		{Name: "app-branch-refusal", Setup: "CREATE TABLE acct (id int PRIMARY KEY, bal int); INSERT INTO acct VALUES (1, 5); CREATE TABLE refusals (who text);",
			Funcs: []func(ctx context.Context, cs string) (any, error){
				func(ctx context.Context, cs string) (any, error) {
					var l appLog
					c, err := pgx.Connect(ctx, cs)
					if err != nil {
						return nil, err
					}
					defer c.Close(ctx)
					_, err = c.Exec(ctx, "BEGIN")
					bal, err := pgxInt(ctx, c, "SELECT bal FROM acct WHERE id = 1")
					l.add("bal %d %s", bal, errCode(err))
					if bal >= 5 {
						n, err := pgxExec(ctx, c, "UPDATE acct SET bal = bal - 5 WHERE id = 1")
						l.add("upd %d %s", n, errCode(err))
					} else {
						_, err := pgxExec(ctx, c, "INSERT INTO refusals VALUES ('a')")
						l.add("refused %s", errCode(err))
					}
					_, err = c.Exec(ctx, "COMMIT")
					l.add("commit %s", errCode(err))
					return l.out(), nil
				},
				func(ctx context.Context, cs string) (any, error) {
					var l appLog
					c, err := pgx.Connect(ctx, cs)
					if err != nil {
						return nil, err
					}
					defer c.Close(ctx)
					n, err := pgxExec(ctx, c, "UPDATE acct SET bal = bal - 3 WHERE id = 1 AND bal >= 3")
					l.add("upd %d %s", n, errCode(err))
					if n == 0 {
						_, err := pgxExec(ctx, c, "INSERT INTO refusals VALUES ('b')")
						l.add("refused %s", errCode(err))
					}
					return l.out(), nil
				}}},
		{Name: "app-claim-jobs", Setup: "CREATE TABLE jobs (id int PRIMARY KEY, owner text); INSERT INTO jobs VALUES (1, NULL);",
			Funcs: []func(ctx context.Context, cs string) (any, error){claimJobs("a", 2), claimJobs("b", 1)}},
		{Name: "app-pgx-cached-search-path", Setup: namesTenant,
			Funcs: []func(ctx context.Context, cs string) (any, error){
				func(ctx context.Context, cs string) (any, error) {
					var l appLog
					c, err := pgx.Connect(ctx, cs)
					if err != nil {
						return nil, err
					}
					defer c.Close(ctx)
					v, err := pgxInt(ctx, c, "SELECT bal FROM accounts WHERE id = $1", 1)
					l.add("public %d %s", v, errCode(err))
					_, err = c.Exec(ctx, "SET search_path TO tenant_a, public")
					l.add("set %s", errCode(err))
					v, err = pgxInt(ctx, c, "SELECT bal FROM accounts WHERE id = $1", 1)
					l.add("tenant %d %s", v, errCode(err))
					return l.out(), nil
				},
				func(ctx context.Context, cs string) (any, error) {
					var l appLog
					c, err := pgx.Connect(ctx, cs)
					if err != nil {
						return nil, err
					}
					defer c.Close(ctx)
					n, err := pgxExec(ctx, c, "UPDATE tenant_a.accounts SET bal = 7 WHERE id = 1")
					l.add("upd %d %s", n, errCode(err))
					return l.out(), nil
				}}},
		{Name: "app-batch-error-midway", Setup: "CREATE TABLE a (id int PRIMARY KEY, v int); CREATE TABLE u (id int PRIMARY KEY); CREATE TABLE c (id int PRIMARY KEY, v int); INSERT INTO a VALUES (1, 0); INSERT INTO c VALUES (1, 0);",
			Funcs: []func(ctx context.Context, cs string) (any, error){
				func(ctx context.Context, cs string) (any, error) {
					var l appLog
					c, err := pgxConnect(ctx, cs)
					if err != nil {
						return nil, err
					}
					defer c.Close(ctx)
					b := &pgx.Batch{}
					b.Queue("UPDATE a SET v = v + 1 WHERE id = 1")
					b.Queue("INSERT INTO u VALUES (1)")
					b.Queue("UPDATE c SET v = v + 1 WHERE id = 1")
					l.add("batch %s", batchResults(ctx, c, b))
					v, err := pgxInt(ctx, c, "SELECT v FROM a WHERE id = 1")
					l.add("a %d %s", v, errCode(err))
					return l.out(), nil
				},
				func(ctx context.Context, cs string) (any, error) {
					var l appLog
					c, err := pgxConnect(ctx, cs)
					if err != nil {
						return nil, err
					}
					defer c.Close(ctx)
					n, err := pgxExec(ctx, c, "INSERT INTO u VALUES (1)")
					l.add("ins %d %s", n, errCode(err))
					v, err := pgxInt(ctx, c, "SELECT v FROM a WHERE id = 1")
					l.add("a %d %s", v, errCode(err))
					v, err = pgxInt(ctx, c, "SELECT v FROM c WHERE id = 1")
					l.add("c %d %s", v, errCode(err))
					return l.out(), nil
				}}},
		{Name: "app-branch-heap-order-observer", Setup: "CREATE TABLE t (id int PRIMARY KEY, v int); INSERT INTO t VALUES (1, 0), (2, 0); CREATE TABLE flag (id int PRIMARY KEY, f int); INSERT INTO flag VALUES (1, 0);",
			Funcs: []func(ctx context.Context, cs string) (any, error){
				func(ctx context.Context, cs string) (any, error) {
					var l appLog
					c, err := pgxConnect(ctx, cs)
					if err != nil {
						return nil, err
					}
					defer c.Close(ctx)
					n, err := pgxExec(ctx, c, "UPDATE t SET v = 1 WHERE id = 1")
					l.add("upd %d %s", n, errCode(err))
					f, err := pgxInt(ctx, c, "SELECT f FROM flag WHERE id = 1")
					l.add("flag %d %s", f, errCode(err))
					if f == 1 {
						var s string
						err := c.QueryRow(ctx, "SELECT string_agg(id::text, ',') FROM t").Scan(&s)
						l.add("scan %s %s", s, errCode(err))
					}
					return l.out(), nil
				},
				func(ctx context.Context, cs string) (any, error) {
					var l appLog
					c, err := pgxConnect(ctx, cs)
					if err != nil {
						return nil, err
					}
					defer c.Close(ctx)
					n, err := pgxExec(ctx, c, "UPDATE t SET v = 1 WHERE id = 2")
					l.add("upd %d %s", n, errCode(err))
					n, err = pgxExec(ctx, c, "UPDATE flag SET f = 1 WHERE id = 1")
					l.add("flag %d %s", n, errCode(err))
					return l.out(), nil
				}}},
		{Name: "app-transfer-retry-deadlock", Large: true, Setup: "CREATE TABLE acct (id int PRIMARY KEY, bal int); INSERT INTO acct VALUES (1, 5), (2, 5); CREATE TABLE refusals (who int);",
			Funcs: []func(ctx context.Context, cs string) (any, error){transferRetry(1, 2, "READ COMMITTED"), transferRetry(2, 1, "READ COMMITTED")}},
		{Name: "app-transfer-retry-rr", Setup: "CREATE TABLE acct (id int PRIMARY KEY, bal int); INSERT INTO acct VALUES (1, 5), (2, 0); CREATE TABLE refusals (who int);",
			Funcs: []func(ctx context.Context, cs string) (any, error){transferRetry(1, 2, "REPEATABLE READ"), transferRetry(2, 1, "REPEATABLE READ")}},
		{Name: "app-libpq-rr-branch", Setup: "CREATE TABLE a (id int PRIMARY KEY, v int); CREATE TABLE b (id int PRIMARY KEY, v int); INSERT INTO a VALUES (1, 0); INSERT INTO b VALUES (1, 0);",
			Funcs: []func(ctx context.Context, cs string) (any, error){libpqBranch,
				func(ctx context.Context, cs string) (any, error) {
					var l appLog
					c, err := pgxConnect(ctx, cs)
					if err != nil {
						return nil, err
					}
					defer c.Close(ctx)
					n, err := pgxExec(ctx, c, "UPDATE b SET v = 10 WHERE id = 1")
					l.add("b %d %s", n, errCode(err))
					n, err = pgxExec(ctx, c, "UPDATE a SET v = 1 WHERE id = 1")
					l.add("a %d %s", n, errCode(err))
					return l.out(), nil
				}}},
		{Name: "app-upsert-retry", Setup: "CREATE TABLE users (id serial PRIMARY KEY, name text UNIQUE);",
			Funcs: []func(ctx context.Context, cs string) (any, error){upsertUser, upsertUser}},
		{Name: "app-pool-reconnect-search-path", Setup: namesTenant,
			Funcs: []func(ctx context.Context, cs string) (any, error){reconnectSearchPath,
				func(ctx context.Context, cs string) (any, error) {
					var l appLog
					c, err := pgxConnect(ctx, cs)
					if err != nil {
						return nil, err
					}
					defer c.Close(ctx)
					n, err := pgxExec(ctx, c, "UPDATE accounts SET bal = 5 WHERE id = 1")
					l.add("upd %d %s", n, errCode(err))
					return l.out(), nil
				}}},
		{Name: "app-client-deadline-in-hold", Large: true, Setup: "CREATE TABLE t (id int PRIMARY KEY, v int); INSERT INTO t VALUES (1, 0);",
			Funcs: []func(ctx context.Context, cs string) (any, error){
				func(ctx context.Context, cs string) (any, error) {
					var l appLog
					c, err := pgxConnect(ctx, cs)
					if err != nil {
						return nil, err
					}
					defer c.Close(ctx)
					for _, q := range []string{"BEGIN", "UPDATE t SET v = 1 WHERE id = 1", "SELECT count(*) FROM generate_series(1, 6000000)", "COMMIT"} {
						_, err := c.Exec(ctx, q)
						l.add("%s", errCode(err))
					}
					return l.out(), nil
				},
				func(ctx context.Context, cs string) (any, error) {
					var l appLog
					c, err := pgxConnect(ctx, cs)
					if err != nil {
						return nil, err
					}
					defer c.Close(ctx)
					_, err = c.Exec(ctx, "SELECT 1")
					l.add("%s", errCode(err))
					tctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
					defer cancel()
					v, err := pgxInt(tctx, c, "SELECT v FROM t WHERE id = 1 FOR UPDATE")
					if err != nil {
						return l.out().(string) + " | timeout", nil
					}
					l.add("v %d", v)
					return l.out(), nil
				}}},
		{Name: "app-batch-begin-rr", Setup: "CREATE TABLE a (id int PRIMARY KEY, v int); CREATE TABLE b (id int PRIMARY KEY, v int); INSERT INTO a VALUES (1, 0); INSERT INTO b VALUES (1, 0);",
			Funcs: []func(ctx context.Context, cs string) (any, error){
				func(ctx context.Context, cs string) (any, error) {
					var l appLog
					c, err := pgxConnect(ctx, cs)
					if err != nil {
						return nil, err
					}
					defer c.Close(ctx)
					bt := &pgx.Batch{}
					bt.Queue("BEGIN ISOLATION LEVEL REPEATABLE READ")
					bt.Queue("SELECT 1")
					l.add("batch %s", batchResults(ctx, c, bt))
					v, err := pgxInt(ctx, c, "SELECT v FROM b WHERE id = 1")
					l.add("b %d %s", v, errCode(err))
					v, err = pgxInt(ctx, c, "SELECT v FROM a WHERE id = 1")
					l.add("a %d %s", v, errCode(err))
					_, err = c.Exec(ctx, "COMMIT")
					l.add("commit %s", errCode(err))
					return l.out(), nil
				},
				func(ctx context.Context, cs string) (any, error) {
					var l appLog
					c, err := pgxConnect(ctx, cs)
					if err != nil {
						return nil, err
					}
					defer c.Close(ctx)
					_, err = c.Exec(ctx, "SELECT 1")
					l.add("%s", errCode(err))
					n, err := pgxExec(ctx, c, "UPDATE a SET v = 1 WHERE id = 1")
					l.add("upd %d %s", n, errCode(err))
					return l.out(), nil
				}}},
		{Name: "app-leaked-conn-in-tx", Setup: "CREATE TABLE t (id int PRIMARY KEY, v int); INSERT INTO t VALUES (1, 0);",
			Funcs: []func(ctx context.Context, cs string) (any, error){
				func(ctx context.Context, cs string) (any, error) {
					var l appLog
					c, err := pgxConnect(ctx, cs)
					if err != nil {
						return nil, err
					}
					_, err = c.Exec(ctx, "BEGIN")
					l.add("%s", errCode(err))
					n, err := pgxExec(ctx, c, "UPDATE t SET v = v + 1 WHERE id = 1")
					l.add("upd %d %s", n, errCode(err))
					return l.out(), nil // the connection is never closed
				},
				func(ctx context.Context, cs string) (any, error) {
					var l appLog
					c, err := pgxConnect(ctx, cs)
					if err != nil {
						return nil, err
					}
					defer c.Close(ctx)
					_, err = c.Exec(ctx, "SELECT 1")
					l.add("%s", errCode(err))
					n, err := pgxExec(ctx, c, "UPDATE t SET v = v + 10 WHERE id = 1 RETURNING v")
					l.add("upd %d %s", n, errCode(err))
					return l.out(), nil
				}}},
		{Name: "app-pgxpool-release-in-tx", Setup: "CREATE TABLE t (id int PRIMARY KEY, v int); INSERT INTO t VALUES (1, 0); CREATE TABLE x (id int PRIMARY KEY, v int); INSERT INTO x VALUES (1, 0);",
			Funcs: []func(ctx context.Context, cs string) (any, error){
				func(ctx context.Context, cs string) (any, error) {
					var l appLog
					cfg, err := pgxpool.ParseConfig(cs)
					if err != nil {
						return nil, err
					}
					cfg.MaxConns = 1
					cfg.ShouldPing = func(context.Context, pgxpool.ShouldPingParams) bool { return false }
					p, err := pgxpool.NewWithConfig(ctx, cfg)
					if err != nil {
						return nil, err
					}
					defer p.Close()
					c, err := p.Acquire(ctx)
					if err != nil {
						return nil, err
					}
					_, err = c.Exec(ctx, "BEGIN")
					l.add("%s", errCode(err))
					var v int
					err = c.QueryRow(ctx, "UPDATE t SET v = v + 1 WHERE id = 1 RETURNING v").Scan(&v)
					l.add("upd %d %s", v, errCode(err))
					c.Release() // in a transaction: the pool closes it
					err = p.QueryRow(ctx, "SELECT v FROM x WHERE id = 1").Scan(&v)
					l.add("x %d %s", v, errCode(err))
					err = p.QueryRow(ctx, "SELECT v FROM t WHERE id = 1").Scan(&v)
					l.add("t %d %s", v, errCode(err))
					return l.out(), nil
				},
				func(ctx context.Context, cs string) (any, error) {
					var l appLog
					c, err := pgxConnect(ctx, cs)
					if err != nil {
						return nil, err
					}
					defer c.Close(ctx)
					var v int
					err = c.QueryRow(ctx, "UPDATE t SET v = v + 10 WHERE id = 1 RETURNING v").Scan(&v)
					l.add("upd %d %s", v, errCode(err))
					n, err := pgxExec(ctx, c, "UPDATE x SET v = 1 WHERE id = 1")
					l.add("x %d %s", n, errCode(err))
					return l.out(), nil
				}}},
	}
}

package bench

import (
	"context"
	"database/sql"
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
		// Review VV: a pgx batch locks rows 1 and 2, then waits on row 3;
		// the holder's SKIP LOCKED reads inside that wait see the batch's
		// earlier locks (a unit of several statements holds what its first
		// statements locked while its last one waits).
		{Name: "app-batch-wait-skip-locked", Setup: "CREATE TABLE t (id int PRIMARY KEY, v int); INSERT INTO t VALUES (1, 0), (2, 0), (3, 0);",
			Funcs: []func(ctx context.Context, cs string) (any, error){
				func(ctx context.Context, cs string) (any, error) {
					var l appLog
					c, err := pgxConnect(ctx, cs)
					if err != nil {
						return nil, err
					}
					defer c.Close(ctx)
					b := &pgx.Batch{}
					b.Queue("UPDATE t SET v = v + 10 WHERE id = 1")
					b.Queue("UPDATE t SET v = v + 10 WHERE id = 2")
					b.Queue("UPDATE t SET v = v + 10 WHERE id = 3")
					l.add("batch %s", batchResults(ctx, c, b))
					return l.out(), nil
				},
				func(ctx context.Context, cs string) (any, error) {
					var l appLog
					c, err := pgxConnect(ctx, cs)
					if err != nil {
						return nil, err
					}
					defer c.Close(ctx)
					_, err = c.Exec(ctx, "BEGIN")
					l.add("begin %s", errCode(err))
					for _, id := range []int{3, 2, 1} {
						q := "SELECT id FROM t WHERE id = $1 FOR UPDATE SKIP LOCKED"
						if id == 3 {
							q = "SELECT id FROM t WHERE id = $1 FOR UPDATE"
						}
						v, err := pgxInt(ctx, c, q, id)
						l.add("lock %d: %d %s", id, v, errCode(err))
					}
					_, err = c.Exec(ctx, "COMMIT")
					l.add("commit %s", errCode(err))
					return l.out(), nil
				}}},
		// Review VV: a pgconn pipeline writes five Sync cycles at once
		// (BEGIN REPEATABLE READ, a Prepare that takes the snapshot, its
		// Execute, another read, COMMIT); the proxy releases them one at
		// a time.
		{Name: "app-pipeline-syncs-rr", Setup: "CREATE TABLE a (id int PRIMARY KEY, v int); CREATE TABLE b (id int PRIMARY KEY, v int); INSERT INTO a VALUES (1, 0); INSERT INTO b VALUES (1, 0);",
			Funcs: []func(ctx context.Context, cs string) (any, error){
				func(ctx context.Context, cs string) (any, error) {
					var l appLog
					c, err := pgxConnect(ctx, cs)
					if err != nil {
						return nil, err
					}
					defer c.Close(ctx)
					p := c.PgConn().StartPipeline(ctx)
					p.SendQueryParams("BEGIN ISOLATION LEVEL REPEATABLE READ", nil, nil, nil, nil)
					p.SendPipelineSync()
					p.SendPrepare("sa", "SELECT v FROM a WHERE id = 1", nil)
					p.SendPipelineSync()
					p.SendQueryPrepared("sa", nil, nil, nil)
					p.SendPipelineSync()
					p.SendQueryParams("SELECT v FROM b WHERE id = 1", nil, nil, nil, nil)
					p.SendPipelineSync()
					p.SendQueryParams("COMMIT", nil, nil, nil, nil)
					p.SendPipelineSync()
					l.add("%s", pipelineResults(p))
					return l.out(), nil
				},
				func(ctx context.Context, cs string) (any, error) {
					var l appLog
					c, err := pgxConnect(ctx, cs)
					if err != nil {
						return nil, err
					}
					defer c.Close(ctx)
					n, err := pgxExec(ctx, c, "UPDATE a SET v = 1 WHERE id = 1")
					l.add("a %d %s", n, errCode(err))
					n, err = pgxExec(ctx, c, "UPDATE b SET v = 1 WHERE id = 1")
					l.add("b %d %s", n, errCode(err))
					return l.out(), nil
				}}},
		// Review VV: database/sql rolls a transaction back when its
		// context ends (Tx.awaitDone, in its own goroutine); the actor
		// forgets Commit, cancels, and goes on on the same pool.
		{Name: "app-sql-tx-cancel-rollback", Setup: "CREATE TABLE t (id int PRIMARY KEY, v int); INSERT INTO t VALUES (1, 0); CREATE TABLE x (id int PRIMARY KEY, v int); INSERT INTO x VALUES (1, 0);",
			Funcs: []func(ctx context.Context, cs string) (any, error){sqlTxCancel,
				func(ctx context.Context, cs string) (any, error) {
					var l appLog
					c, err := pgxConnect(ctx, cs)
					if err != nil {
						return nil, err
					}
					defer c.Close(ctx)
					n, err := pgxExec(ctx, c, "UPDATE x SET v = v + 10 WHERE id = 1")
					l.add("x %d %s", n, errCode(err))
					v, err := pgxInt(ctx, c, "UPDATE t SET v = v + 10 WHERE id = 1 RETURNING v")
					l.add("t %d %s", v, errCode(err))
					return l.out(), nil
				}}},
		// Review VV: pgx's CopyFrom first prepares "select cols from t"
		// (a Prepare unit, in a REPEATABLE READ block: the snapshot), then
		// runs COPY.
		{Name: "app-copyfrom-rr-snapshot", Setup: "CREATE TABLE a (id int PRIMARY KEY, v int); INSERT INTO a VALUES (1, 0); CREATE TABLE imp (id int, v int);",
			Funcs: []func(ctx context.Context, cs string) (any, error){
				func(ctx context.Context, cs string) (any, error) {
					var l appLog
					c, err := pgxConnect(ctx, cs)
					if err != nil {
						return nil, err
					}
					defer c.Close(ctx)
					_, err = c.Exec(ctx, "BEGIN ISOLATION LEVEL REPEATABLE READ")
					l.add("begin %s", errCode(err))
					n, err := c.CopyFrom(ctx, pgx.Identifier{"imp"}, []string{"id", "v"}, pgx.CopyFromRows([][]any{{int32(1), int32(5)}}))
					l.add("copy %d %s", n, errCode(err))
					v, err := pgxInt(ctx, c, "SELECT v FROM a WHERE id = 1")
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
					n, err := pgxExec(ctx, c, "UPDATE a SET v = 1 WHERE id = 1")
					l.add("a %d %s", n, errCode(err))
					return l.out(), nil
				}}},
		// Review VV: database/sql cannot ask for DEFERRABLE, so the DSN
		// sets default_transaction_deferrable; a READ ONLY SERIALIZABLE
		// transaction then waits for a safe snapshot at its first
		// statement, for every serializable transaction running then.
		{Name: "app-sql-deferrable-by-dsn", Setup: "CREATE TABLE r (id int PRIMARY KEY, v int); INSERT INTO r VALUES (1, 0); CREATE TABLE w (id int PRIMARY KEY, v int); INSERT INTO w VALUES (1, 0);",
			Funcs: []func(ctx context.Context, cs string) (any, error){sqlDeferrableReport,
				func(ctx context.Context, cs string) (any, error) {
					var l appLog
					c, err := pgxConnect(ctx, cs)
					if err != nil {
						return nil, err
					}
					defer c.Close(ctx)
					for _, q := range []string{"BEGIN ISOLATION LEVEL SERIALIZABLE", "UPDATE w SET v = v + 1 WHERE id = 1", "COMMIT"} {
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
					n, err := pgxExec(ctx, c, "UPDATE r SET v = 1 WHERE id = 1")
					l.add("r %d %s", n, errCode(err))
					return l.out(), nil
				}}},
		// Review VV: pgx prepares a statement (Parse, Describe, Sync)
		// before it runs it; PostgreSQL reads a 'now' literal's clock at
		// that Parse, which is released with the actor's previous
		// statement, not at the Execute.
		{Name: "app-pgx-parse-now-literal", Setup: `CREATE SCHEMA x; CREATE TABLE x.ta (t timestamptz); CREATE TABLE x.tb (t timestamptz);`,
			Funcs: []func(ctx context.Context, cs string) (any, error){
				func(ctx context.Context, cs string) (any, error) {
					var l appLog
					c, err := pgxConnect(ctx, cs)
					if err != nil {
						return nil, err
					}
					defer c.Close(ctx)
					_, err = c.Exec(ctx, "SELECT 1")
					l.add("one %s", errCode(err))
					n, err := pgxExec(ctx, c, "INSERT INTO x.ta VALUES ('now'::timestamptz) RETURNING $1::int", 1)
					l.add("ins %d %s", n, errCode(err))
					var b *bool
					err = c.QueryRow(ctx, "SELECT (SELECT t FROM x.ta) < (SELECT t FROM x.tb)").Scan(&b)
					if b == nil {
						l.add("cmp null %s", errCode(err))
					} else {
						l.add("cmp %v %s", *b, errCode(err))
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
					n, err := pgxExec(ctx, c, "INSERT INTO x.tb VALUES (now()) RETURNING $1::int", 1)
					l.add("ins %d %s", n, errCode(err))
					return l.out(), nil
				}}},
		// Review VV: the application passes the time as the text 'now'
		// (lib/pq sends every parameter as text): the Bind's input
		// function reads the clock, and no plan shows it; so it does
		// through a domain, a range or a composite type (only date and
		// time parameter types counted).
		libpqNowCase("app-libpq-now-parameter", "", "INSERT INTO x.ta VALUES ($1)", "now"),
		libpqNowCase("app-libpq-now-domain-parameter", "CREATE DOMAIN x.stamp AS timestamptz;", "INSERT INTO x.ta VALUES ($1::x.stamp)", "now"),
		libpqNowCase("app-libpq-now-range-parameter", "", "INSERT INTO x.ta VALUES (lower($1::tstzrange))", "[now,infinity)"),
		libpqNowCase("app-libpq-now-composite-parameter", "CREATE TYPE x.ev AS (t timestamptz);", "INSERT INTO x.ta VALUES (($1::x.ev).t)", "(now)"),
		// Review VV: the same Parse-time clock in a read: a session
		// counts the rows that expired before 'now', a literal pgx's
		// prepare round trip evaluates with the actor's previous statement.
		{Name: "app-pgx-parse-now-expiry", Setup: `CREATE SCHEMA x; CREATE TABLE x.sess (expires timestamptz);`,
			Funcs: []func(ctx context.Context, cs string) (any, error){
				func(ctx context.Context, cs string) (any, error) {
					var l appLog
					c, err := pgxConnect(ctx, cs)
					if err != nil {
						return nil, err
					}
					defer c.Close(ctx)
					_, err = c.Exec(ctx, "SELECT 1")
					l.add("one %s", errCode(err))
					n, err := pgxInt(ctx, c, "SELECT count(*) FROM x.sess WHERE expires < 'now'::timestamptz AND $1::int = 1", 1)
					l.add("expired %d %s", n, errCode(err))
					return l.out(), nil
				},
				func(ctx context.Context, cs string) (any, error) {
					var l appLog
					c, err := pgxConnect(ctx, cs)
					if err != nil {
						return nil, err
					}
					defer c.Close(ctx)
					n, err := pgxExec(ctx, c, "INSERT INTO x.sess VALUES (now()) RETURNING $1::int", 1)
					l.add("ins %d %s", n, errCode(err))
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

// libpqNowCase (review V): one actor inserts the time through lib/pq's
// text parameter arg of insert (into x.ta, after the setup's extra
// types) and compares it with the other actor's now() in x.tb.
func libpqNowCase(name, types, insert, arg string) Case {
	return Case{Name: name, Setup: "CREATE SCHEMA x; " + types + " CREATE TABLE x.ta (t timestamptz); CREATE TABLE x.tb (t timestamptz);",
		Funcs: []func(ctx context.Context, cs string) (any, error){
			func(ctx context.Context, cs string) (any, error) {
				var l appLog
				db, err := sql.Open("postgres", cs)
				if err != nil {
					return nil, err
				}
				defer db.Close()
				db.SetMaxOpenConns(1)
				n, err := sqlExec(ctx, db, insert, arg)
				l.add("ins %d %s", n, errCode(err))
				var b *bool
				err = db.QueryRowContext(ctx, "SELECT (SELECT t FROM x.ta) < (SELECT t FROM x.tb)").Scan(&b)
				if b == nil {
					l.add("cmp null %s", errCode(err))
				} else {
					l.add("cmp %v %s", *b, errCode(err))
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
				n, err := pgxExec(ctx, c, "INSERT INTO x.tb VALUES (now())")
				l.add("ins %d %s", n, errCode(err))
				return l.out(), nil
			}}}
}

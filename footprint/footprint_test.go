package footprint

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave/pgserver"
)

func TestLexSplitsStatementsOutsideQuotes(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want int
		ok   bool
	}{
		{"BEGIN; SELECT 1; COMMIT", 3, true},
		{"SELECT ';' FROM t -- ; comment\n; SELECT 2", 2, true},
		{"SELECT $$a;b$$, $tag$;$tag$; SELECT E'it\\'s;'", 2, true},
		{`SELECT "semi;colon" FROM t /* nested /* ; */ ; */`, 1, true},
		{"SELECT 'unterminated", 0, false},
		{"SELECT $1 + $2", 1, true},
		{"", 0, true},
	} {
		stmts, ok := lex(tc.sql)
		if ok != tc.ok || (ok && len(stmts) != tc.want) {
			t.Errorf("lex(%q) = %d statements, ok %v; want %d, %v", tc.sql, len(stmts), ok, tc.want, tc.ok)
		}
	}
}

func TestStripCasts(t *testing.T) {
	for in, want := range map[string]string{
		"(name)::character varying(10)":    "(name)",
		"'{1,2}'::integer[]":               "'{1,2}'",
		"lower((x)::text)":                 "lower((x))",
		"(a)::numeric(10,2) + f(b)":        "(a) + f(b)",
		`(x)::"my type"`:                   "(x)",
		"nextval('s'::regclass)":           "nextval('s')",
		"((n + 1))::integer = $1":          "((n + 1)) = $1",
		"count(*) FILTER (WHERE (a)::int)": "count(*) FILTER (WHERE (a))",
	} {
		if got := stripCasts(in); got != want {
			t.Errorf("stripCasts(%q) = %q, want %q", in, got, want)
		}
	}
}

var server pgserver.Server

func TestMain(m *testing.M) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	srv, err := pgserver.StartLocal(ctx, pgserver.LocalOptions{})
	cancel()
	if err != nil {
		os.Stderr.WriteString("footprint tests need PostgreSQL: " + err.Error() + "\n")
		os.Exit(2)
	}
	server = srv
	code := m.Run()
	srv.Close()
	os.Exit(code)
}

const schema = `
CREATE TABLE counter (id int PRIMARY KEY, n int NOT NULL);
CREATE TABLE products (id int PRIMARY KEY, stock int NOT NULL);
CREATE TABLE orders (id serial PRIMARY KEY, product int NOT NULL REFERENCES products, qty int);
CREATE TABLE audit (id bigint GENERATED ALWAYS AS IDENTITY, note text);
CREATE TABLE logged (id int);
CREATE FUNCTION note() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO audit(note) VALUES ('x'); RETURN NEW; END $$;
CREATE TRIGGER t AFTER INSERT ON logged FOR EACH ROW EXECUTE FUNCTION note();
CREATE FUNCTION bump() RETURNS int LANGUAGE sql AS $$ UPDATE counter SET n = n + 1 RETURNING n $$;
CREATE VIEW low AS SELECT * FROM products WHERE stock < 5;
CREATE TABLE events (id int, at date) PARTITION BY RANGE (at);
CREATE TABLE events_2026 PARTITION OF events FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
CREATE SEQUENCE tickets;
CREATE TABLE jobs (id int PRIMARY KEY, owner text);
CREATE VIEW claimable AS SELECT id FROM jobs WHERE owner IS NULL ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED;
CREATE TABLE bills (tenant int NOT NULL, amount int) PARTITION BY LIST (tenant);
CREATE TABLE bills_1 PARTITION OF bills FOR VALUES IN (1);
CREATE TABLE bills_2 PARTITION OF bills FOR VALUES IN (2);
CREATE SCHEMA tenant_a;
CREATE TABLE tenant_a.counter (id int PRIMARY KEY, n int NOT NULL);
`

func classifier(t *testing.T) (*Classifier, context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	db, err := server.CreateDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.DropDatabase(context.Background(), db) })
	conn, err := pgx.Connect(ctx, server.ConnString(db))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	if _, err := conn.Exec(ctx, schema); err != nil {
		t.Fatal(err)
	}
	return NewClassifier(conn, NewCache()), ctx
}

func TestClassifyAsksPostgreSQL(t *testing.T) {
	c, ctx := classifier(t)
	type want struct {
		kind                 Kind
		reads, locks, writes string
		isolation, session   string
	}
	for sql, w := range map[string]want{
		"BEGIN":                                 {kind: Begin},
		"begin isolation level repeatable read": {kind: Begin, isolation: "repeatable read"},
		"START TRANSACTION ISOLATION LEVEL SERIALIZABLE": {kind: Begin, isolation: "serializable"},
		"COMMIT":                  {kind: Commit},
		"ROLLBACK":                {kind: Rollback},
		"ROLLBACK TO SAVEPOINT a": {kind: Global},
		"SAVEPOINT a":             {kind: Session},
		"SET TRANSACTION ISOLATION LEVEL SERIALIZABLE":                      {kind: Session, isolation: "serializable"},
		"SET default_transaction_isolation = 'repeatable read'":             {kind: Session, session: "repeatable read"},
		"SET search_path TO public":                                         {kind: Session},
		"SELECT n FROM counter WHERE id = 1":                                {kind: DML, reads: "public.counter"},
		"SELECT n FROM counter WHERE id = $1 FOR UPDATE":                    {kind: DML, reads: "public.counter", locks: "public.counter"},
		"UPDATE counter SET n = $1 WHERE id = $2":                           {kind: DML, reads: "", writes: "public.counter"},
		"UPDATE products SET stock = stock - 1 WHERE id = $1 AND stock > 0": {kind: DML, writes: "public.products"},
		"UPDATE products SET stock = 0 WHERE stock < 0":                     {kind: DML, writes: "public.orders public.products"},
		"DELETE FROM products WHERE id = $1":                                {kind: DML, writes: "public.orders public.products"},
		"UPDATE orders SET qty = 2 WHERE id = $1":                           {kind: DML, locks: "public.products", writes: "public.orders"},
		"INSERT INTO orders (product, qty) VALUES ($1, 1)":                  {kind: DML, locks: "public.products", writes: "public.orders sequence public.orders_id_seq"},
		"INSERT INTO audit (note) VALUES ('x')":                             {kind: DML, writes: "public.audit sequence public.audit_id_seq"},
		"SELECT * FROM low":                                                 {kind: DML, reads: "public.products"},
		"SELECT count(*), lower('X'), now() FROM products":                  {kind: DML, reads: "public.products", writes: "sequence (clock)"},
		"SELECT * FROM events":                                              {kind: DML, reads: "public.events public.events_2026"},
		"INSERT INTO logged VALUES (1)":                                     {kind: Global},
		"SELECT bump()":                                                     {kind: Global},
		"SELECT nextval('tickets')":                                         {kind: DML, writes: "sequence public.tickets"},
		"SELECT setval('tickets', 5)":                                       {kind: Global},
		"SELECT pg_advisory_lock(1)":                                        {kind: DML, reads: "advisory locks", writes: "advisory locks"},
		"SELECT pg_try_advisory_xact_lock_shared($1)":                       {kind: DML, reads: "advisory locks", writes: "advisory locks"},
		"SELECT to_regclass('x') IS NULL":                                   {kind: DML},
		"CREATE TABLE IF NOT EXISTS y (id int REFERENCES products)":         {kind: Global},
		"CREATE TABLE z AS SELECT 1":                                        {kind: Global},
		"CREATE TEMP TABLE z (a int)":                                       {kind: Global},
		"CREATE TABLE z PARTITION OF bills FOR VALUES IN (3)":               {kind: Global},
		"TRUNCATE counter":                                                  {kind: Global},
		"LOCK TABLE counter":                                                {kind: Global},
		"CREATE TABLE x (a int)":                                            {kind: DML, reads: "catalogs", writes: "catalogs information_schema.x pg_catalog.x pg_toast.x public.x tenant_a.x"},
		"DO $$ BEGIN END $$":                                                {kind: Global},
		"SELECT * FROM nosuchtable":                                         {kind: Global},
		"NOTIFY chan":                                                       {kind: Global},
		// Issue 18's holes: a sequence read as a relation is the sequence
		// nextval writes; a view's locking clause locks; a parameter does
		// not prune partitions away; functions that see other sessions'
		// uncommitted work are global.
		"SELECT last_value FROM tickets":                   {kind: DML, reads: "sequence public.tickets"},
		"SELECT id FROM claimable":                         {kind: DML, reads: "public.jobs", locks: "public.jobs"},
		"SELECT count(*) FROM bills WHERE tenant = $1":     {kind: DML, reads: "public.bills public.bills_1 public.bills_2"},
		"SELECT txid_current()":                            {kind: Global},
		"SELECT pg_current_xact_id()":                      {kind: Global},
		"SELECT currval('tickets')":                        {kind: Global},
		"SELECT pg_sequence_last_value('tickets')":         {kind: Global},
		"SET LOCAL search_path TO tenant_a":                {kind: Session},
		"SELECT pg_stat_get_live_tuples('jobs'::regclass)": {kind: Global},
	} {
		got := c.Classify(ctx, sql)
		if len(got) != 1 {
			t.Errorf("%s: %d statements", sql, len(got))
			continue
		}
		s := got[0]
		j := func(x []string) string { return strings.Join(x, " ") }
		if s.Kind != w.kind || (w.kind == DML && (j(s.Locks) != w.locks || j(s.Writes) != w.writes || (w.reads != "" && j(s.Reads) != w.reads))) ||
			s.Isolation != w.isolation || s.SessionIsolation != w.session {
			t.Errorf("%s:\n got %s reads [%s] locks [%s] writes [%s] iso %q/%q (%s)\nwant %s reads [%s] locks [%s] writes [%s] iso %q/%q",
				sql, s.Kind, j(s.Reads), j(s.Locks), j(s.Writes), s.Isolation, s.SessionIsolation, s.Why, w.kind, w.reads, w.locks, w.writes, w.isolation, w.session)
		}
	}
	multi := c.Classify(ctx, "BEGIN; UPDATE counter SET n = n + 1 WHERE id = 1; COMMIT")
	u := Combine(multi)
	if len(multi) != 3 || !u.Begins || !u.Ends || !u.Writes["public.counter"] || u.Global {
		t.Errorf("a simple Query with three statements: %+v", u)
	}
}

// TestClassifyInTheActorsSession: unqualified names resolve in the
// session's search_path, not the classifier connection's; a session whose
// state is unknown makes statements that resolve names global; the cache
// keeps the two apart.
func TestClassifyInTheActorsSession(t *testing.T) {
	c, ctx := classifier(t)
	tenant := SessionState{Setup: []string{"SET search_path TO tenant_a"}}
	for _, tc := range []struct {
		sess SessionState
		want string
	}{
		{SessionState{}, "public.counter"},
		{tenant, "tenant_a.counter"},
		{SessionState{}, "public.counter"},
	} {
		got := c.ClassifyIn(ctx, tc.sess, "SELECT n FROM counter")
		if len(got) != 1 || got[0].Kind != DML || strings.Join(got[0].Reads, " ") != tc.want {
			t.Errorf("in %v: %+v, want reads %s", tc.sess.Setup, got, tc.want)
		}
	}
	got := c.ClassifyIn(ctx, SessionState{Unknown: "a user function ran"}, "SELECT n FROM counter; COMMIT")
	if len(got) != 2 || got[0].Kind != Global || got[1].Kind != Commit {
		t.Errorf("an unknown session: %+v", got)
	}
	bad := c.ClassifyIn(ctx, SessionState{Setup: []string{"SET ROLE no_such_role"}}, "SELECT n FROM counter")
	if len(bad) != 1 || bad[0].Kind != Global {
		t.Errorf("a session that cannot be reproduced: %+v", bad)
	}
	var sp string
	if err := c.conn.QueryRow(ctx, "SHOW search_path").Scan(&sp); err != nil || strings.Contains(sp, "tenant_a") {
		t.Errorf("the classifier's connection kept the session's search_path: %q %v", sp, err)
	}
}

// TestDefaultsFollowDatabaseAndRoleSettings: a connection's default
// isolation and search_path come from its start-up packet, else the
// database's and role's settings made after the classifier connected.
func TestDefaultsFollowDatabaseAndRoleSettings(t *testing.T) {
	c, ctx := classifier(t)
	if _, err := c.conn.Exec(ctx, `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET default_transaction_isolation = %L', current_database(), 'repeatable read');
		EXECUTE format('ALTER DATABASE %I SET search_path = tenant_a, public', current_database()); END $$`); err != nil {
		t.Fatal(err)
	}
	var user string
	if err := c.conn.QueryRow(ctx, "SELECT current_user").Scan(&user); err != nil {
		t.Fatal(err)
	}
	v := c.Defaults(ctx, []string{"user", user, "database", "x"})
	if v.Isolation != "repeatable read" {
		t.Errorf("isolation from ALTER DATABASE: %q", v.Isolation)
	}
	if got := c.ClassifyIn(ctx, v.State(), "SELECT n FROM counter"); len(got) != 1 || strings.Join(got[0].Reads, " ") != "tenant_a.counter" {
		t.Errorf("search_path from ALTER DATABASE: %+v", got)
	}
	v = c.Defaults(ctx, []string{"user", user, "options", "-c default_transaction_isolation=serializable --search_path=public"})
	if v.Isolation != "serializable" {
		t.Errorf("isolation from options: %q", v.Isolation)
	}
	if got := c.ClassifyIn(ctx, v.State(), "SELECT n FROM counter"); len(got) != 1 || strings.Join(got[0].Reads, " ") != "public.counter" {
		t.Errorf("search_path from options: %+v", got)
	}
	v = c.Defaults(ctx, []string{"user", user, "default_transaction_isolation", "read committed"})
	if v.Isolation != "read committed" {
		t.Errorf("isolation from a start-up parameter: %q", v.Isolation)
	}
}

func TestParseOptions(t *testing.T) {
	got, ok := parseOptions(`-c search_path=a\ b -cstatement_timeout=5 --default-transaction-isolation=serializable`)
	if !ok || got["search_path"] != "a b" || got["statement_timeout"] != "5" || got["default_transaction_isolation"] != "serializable" {
		t.Errorf("parseOptions: %v %v", got, ok)
	}
	if _, ok := parseOptions("-x"); ok {
		t.Error("an unknown option parsed")
	}
}

func TestSafeSnapshotNeedsReadOnlyAndDeferrable(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want bool
	}{
		{"BEGIN ISOLATION LEVEL SERIALIZABLE READ ONLY DEFERRABLE", true},
		{"start transaction read only, deferrable, isolation level serializable", true},
		{"BEGIN READ ONLY DEFERRABLE", true},
		{"BEGIN ISOLATION LEVEL SERIALIZABLE, READ ONLY, NOT DEFERRABLE", false},
		{"BEGIN ISOLATION LEVEL SERIALIZABLE READ WRITE DEFERRABLE", false},
		{"BEGIN ISOLATION LEVEL SERIALIZABLE DEFERRABLE", false},
		{"BEGIN ISOLATION LEVEL SERIALIZABLE READ ONLY", false},
		{"BEGIN", false},
	} {
		stmts, ok := lex(tc.sql)
		if !ok || len(stmts) != 1 {
			t.Fatalf("lex(%q) failed", tc.sql)
		}
		if got := safeSnapshot(stmts[0]); got != tc.want {
			t.Errorf("safeSnapshot(%q) = %v, want %v", tc.sql, got, tc.want)
		}
	}
}

func TestRowLockModesAndTimeouts(t *testing.T) {
	for _, tc := range []struct {
		sql        string
		wait, hold bool
	}{
		{"UPDATE acct SET bal = 1 WHERE id = 1", true, true},
		{"DELETE FROM acct WHERE id = 1", true, true},
		{"SELECT bal FROM acct WHERE id = 1 FOR UPDATE", true, true},
		{"SELECT bal FROM acct WHERE id = 1 FOR NO KEY UPDATE", true, true},
		{"SELECT bal FROM acct WHERE id = 1 FOR SHARE", true, false},
		{"SELECT bal FROM acct WHERE id = 1 FOR KEY SHARE", false, false},
		{"SELECT bal FROM acct WHERE id = 1 FOR UPDATE SKIP LOCKED", false, true},
		{"SELECT bal FROM acct WHERE id = 1 FOR UPDATE NOWAIT", false, true},
		{"SELECT bal FROM acct WHERE id = 1", false, false},
		{"INSERT INTO acct VALUES (1, 2)", false, false},
		{"WITH x AS (UPDATE acct SET bal = 1 WHERE id = 1 RETURNING *) SELECT * FROM x", false, false},
		{"SELECT 'for update' FROM acct WHERE id = 1", false, false},
	} {
		stmts, ok := lex(tc.sql)
		if !ok || len(stmts) != 1 {
			t.Fatalf("%s does not lex", tc.sql)
		}
		w := words(stmts[0], 1)
		wait, hold := rowLockModes(w[0], stmts[0])
		if wait != tc.wait || hold != tc.hold {
			t.Errorf("%s: wait %v hold %v, want %v %v", tc.sql, wait, hold, tc.wait, tc.hold)
		}
	}
	for _, tc := range []struct {
		sql     string
		timeout bool
	}{
		{"SET lock_timeout = '1ms'", true},
		{"SET LOCAL statement_timeout TO 5", true},
		{"SET SESSION lock_timeout = 0", true},
		{"RESET lock_timeout", true},
		{"SET search_path TO x", false},
		{"SET idle_session_timeout = 5", true},
	} {
		stmts, _ := lex(tc.sql)
		c := &Classifier{}
		st := c.statement(context.Background(), stmts[0], tc.sql, true, false)
		if st.Timeout != tc.timeout || st.Kind != Session {
			t.Errorf("%s: timeout %v kind %v", tc.sql, st.Timeout, st.Kind)
		}
	}
}

// TestTablesCreatedByTheAttempt: an attempt whose only schema changes are
// plain CREATE TABLEs is classified; a statement that names such a table
// (even one that failed before the table existed, or one that resolves the
// name in another schema) reads the catalogs and the name in every schema;
// catalog reads count as reads of the catalogs.
func TestTablesCreatedByTheAttempt(t *testing.T) {
	for sql, want := range map[string]string{
		"CREATE TABLE widgets (id int PRIMARY KEY)": "widgets",
		`create table if not exists "Public"."Version"(version int4 not null); insert into version(version) select 0`: "version",
		"CREATE UNLOGGED TABLE a.b (x int GENERATED ALWAYS AS (1) STORED)":                                            "b",
		"SELECT 1; TRUNCATE t": "",
	} {
		names, ok := CreatesTables(sql)
		if !ok || strings.Join(names, " ") != want {
			t.Errorf("CreatesTables(%q) = %v, %v; want %q", sql, names, ok, want)
		}
	}
	for _, sql := range []string{"CREATE TABLE t AS SELECT 1", "CREATE TEMP TABLE t (a int)", "CREATE INDEX ON t (a)",
		"ALTER TABLE t ADD b int", "DROP TABLE t", "CREATE TABLE t PARTITION OF p FOR VALUES IN (1)", "CREATE TABLE t OF ty", "DO $$ $$"} {
		if _, ok := CreatesTables(sql); ok {
			t.Errorf("CreatesTables(%q) is ok; want not", sql)
		}
	}
	c, ctx := classifier(t)
	c.AfterCreating([]string{"counter"})
	has := func(list []string, n string) bool { return slices.Contains(list, n) }
	for _, sql := range []string{"SELECT n FROM counter WHERE id = 1", "SELECT to_regclass('public.counter') IS NULL"} {
		s := c.Classify(ctx, sql)[0]
		if s.Kind != DML || !has(s.Reads, Catalogs) || !has(s.Reads, "tenant_a.counter") || !has(s.Reads, "public.counter") {
			t.Errorf("%s after creating counter: %s reads %v", sql, s.Kind, s.Reads)
		}
	}
	s := c.Classify(ctx, "SELECT stock FROM products WHERE id = 1")[0]
	if has(s.Reads, Catalogs) {
		t.Errorf("a statement that does not name a created table reads %v", s.Reads)
	}
	// A view that reads a created table, named by neither its text: the
	// plan's relation counts.
	if _, err := c.conn.Exec(ctx, "CREATE VIEW made_view AS SELECT n FROM counter"); err != nil {
		t.Fatal(err)
	}
	s = c.Classify(ctx, "SELECT n FROM made_view")[0]
	if s.Kind != DML || !has(s.Reads, Catalogs) || !has(s.Reads, "tenant_a.counter") {
		t.Errorf("a view over a created table: %s reads %v", s.Kind, s.Reads)
	}
	s = c.Classify(ctx, "SELECT count(*) FROM pg_tables WHERE tablename = 'other'")[0]
	if s.Kind != DML || !has(s.Reads, Catalogs) {
		t.Errorf("pg_tables: %s reads %v; want the catalogs", s.Kind, s.Reads)
	}
}

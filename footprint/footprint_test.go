package footprint

import (
	"context"
	"os"
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
		"UPDATE products SET stock = stock - 1 WHERE id = $1 AND stock > 0": {kind: DML, writes: "public.orders public.products"},
		"INSERT INTO orders (product, qty) VALUES ($1, 1)":                  {kind: DML, locks: "public.products", writes: "public.orders sequence public.orders_id_seq"},
		"INSERT INTO audit (note) VALUES ('x')":                             {kind: DML, writes: "public.audit sequence public.audit_id_seq"},
		"SELECT * FROM low":                                                 {kind: DML, reads: "public.products"},
		"SELECT count(*), lower('X'), now() FROM products":                  {kind: DML, reads: "public.products"},
		"SELECT * FROM events":                                              {kind: DML, reads: "public.events public.events_2026"},
		"INSERT INTO logged VALUES (1)":                                     {kind: Global},
		"SELECT bump()":                                                     {kind: Global},
		"SELECT nextval('tickets')":                                         {kind: DML, writes: "sequence public.tickets"},
		"SELECT setval('tickets', 5)":                                       {kind: Global},
		"SELECT pg_advisory_lock(1)":                                        {kind: Global},
		"LOCK TABLE counter":                                                {kind: Global},
		"CREATE TABLE x (a int)":                                            {kind: Global},
		"DO $$ BEGIN END $$":                                                {kind: Global},
		"SELECT * FROM nosuchtable":                                         {kind: Global},
		"NOTIFY chan":                                                       {kind: Global},
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

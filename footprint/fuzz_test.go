package footprint

import (
	"strings"
	"testing"
)

// FuzzStatementShapes: the readers of statement text that need no server
// (lex, ChangesSchema, CreatesTables, the CREATE TABLE and INSERT shapes,
// the mention rule) take any text without panicking, and agree: a text
// CreatesTables accepts with names changes the schema, and every name it
// gives is lower case and named by the text.
func FuzzStatementShapes(f *testing.F) {
	for _, s := range []string{
		"CREATE TABLE widgets (id int PRIMARY KEY)",
		`create table if not exists "Public"."Version"(version int4 not null); insert into version(version) select 0`,
		"INSERT INTO runs (job, worker) VALUES ($1, $2) RETURNING id",
		"INSERT INTO runs (job) VALUES (-1), (2)",
		"CREATE TABLE t AS SELECT 1; TRUNCATE t",
		"insert into t (a, b) values ((1), $",
		"CREATE TABLE a.b.c (x int, CHECK (x > 0)) PARTITION BY RANGE (x)",
	} {
		f.Add(s)
	}
	cat := &catalog{keys: map[string]string{"public.p": "id"}, fkCols: map[string][]fkCol{"public.t": {{col: "a", parent: "public.p"}, {col: `"B"`, parent: "public.p"}}}}
	f.Fuzz(func(t *testing.T, sql string) {
		changes := ChangesSchema(sql)
		names, ok := CreatesTables(sql)
		if ok && len(names) > 0 && !changes {
			t.Fatalf("CreatesTables(%q) = %v, but ChangesSchema says no", sql, names)
		}
		// A quoted name's doubled quotes stand for one.
		text := strings.ToLower(strings.ReplaceAll(sql, `""`, `"`))
		for _, n := range names {
			if n != strings.ToLower(n) || !strings.Contains(text, n) {
				t.Fatalf("CreatesTables(%q) names %q", sql, n)
			}
		}
		stmts, _ := lex(sql)
		for _, ts := range stmts {
			createdTable(ts)
			advisoryCallOnly(ts)
			mentions(ts, []string{"t", "widgets"})
			keys := insertParentKeys(cat, ts, "public.t", Set{}, nil)
			for rel, tmpl := range keys {
				if rel != "public.p" || (!strings.HasPrefix(tmpl, "$") && !strings.HasPrefix(tmpl, "=")) {
					t.Fatalf("insertParentKeys(%q) = %v", sql, keys)
				}
			}
		}
	})
}

// TestOneAdvisoryCall: only a SELECT of one advisory lock call is one
// lock-manager operation (search.Event.Atomic).
func TestOneAdvisoryCall(t *testing.T) {
	for sql, want := range map[string]bool{
		"SELECT pg_advisory_lock($1)":                              true,
		"select pg_try_advisory_lock(42) as got":                   true,
		"SELECT pg_catalog.pg_advisory_unlock($1::bigint)":         true,
		"SELECT pg_advisory_xact_lock(1, 2)":                       true,
		"SELECT pg_advisory_lock(1), pg_advisory_lock(2)":          false,
		"SELECT pg_advisory_lock(x) FROM generate_series(1, 3) x":  false,
		"SELECT pg_advisory_unlock(1) AND pg_try_advisory_lock(1)": false,
		"SELECT pg_try_advisory_lock(id) FROM jobs":                false,
		"SELECT pg_try_advisory_lock(hashtext('a'))":               false,
		"SELECT count(*)":                       false,
		"SELECT pg_advisory_lock(1) WHERE true": false,
		"SELECT pg_advisory_lock((SELECT 1))":   false,
	} {
		stmts, _ := lex(sql)
		if got := len(stmts) == 1 && advisoryCallOnly(stmts[0]); got != want {
			t.Errorf("%s: %v, want %v", sql, got, want)
		}
	}
}

package footprint

import (
	"strings"
	"testing"
)

func TestBlindAggregate(t *testing.T) {
	for _, c := range []struct {
		out    string
		typ    uint32
		nondet bool
		want   bool
	}{
		{"count(*)", 20, false, true},
		{"count(DISTINCT t.v)", 20, true, true},
		{"sum(bal)", 20, false, true},
		{"sum(bal)", 1700, false, true},
		{"sum(f)", 701, false, false}, // float addition is not associative
		{"avg(f)", 701, false, false},
		{"min(v)", 23, false, true},
		{"min(n)", 1700, false, false}, // 1.0 = 1.00
		{"max(name)", 25, false, true},
		{"max(name)", 25, true, false}, // 'a' = 'A' under a nondeterministic collation
		{"(sum(bal) = 10)", 16, false, false},
		{"sum(a) + sum(b)", 20, false, false},
		{"count(*) FILTER (WHERE (v > 1))", 20, false, false},
		{"string_agg(((t.*)::text), E'\\n'::text ORDER BY ((t.*)::text))", 25, false, true},
		{"string_agg((t.*)::text, '\n'::text ORDER BY (t.*)::text)", 25, false, true},
		{"string_agg(((t.*)::text), ', '::text ORDER BY ((t.*)::text))", 25, false, true},
		{"string_agg(((t.*)::text), ')'::text ORDER BY ((t.*)::text))", 25, false, true},
		{"string_agg(((t.*)::text), E'\\''::text ORDER BY ((t.*)::text))", 25, false, true},
		{"string_agg(((t.*)::text), E'\\n'::text ORDER BY ((t.*)::text))", 25, true, false},
		{"string_agg(name, ','::text ORDER BY dept)", 25, false, false}, // ties in dept
		{"string_agg(name, ','::text)", 25, false, false},
		{"array_agg(id ORDER BY id)", 1007, false, true},
		{"array_agg(n ORDER BY n)", 1231, false, false}, // numeric[]
		{"array_agg(id)", 1007, false, false},
		{"json_agg(t.* ORDER BY t.*)", 114, false, false},
		{"public.count(*)", 20, false, false},
	} {
		if got := blindAggregate(c.out, c.typ, c.nondet); got != c.want {
			t.Errorf("blindAggregate(%q, %d, %v) = %v, want %v", c.out, c.typ, c.nondet, got, c.want)
		}
	}
}

// TestPlacementReads asks a real server: which invariant queries may see
// the order rows are kept in.
func TestPlacementReads(t *testing.T) {
	c, ctx := classifier(t)
	if _, err := c.conn.Exec(ctx, "CREATE TABLE fl (id int PRIMARY KEY, f float8, n numeric)"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sql  string
		want string // the relations, "all" for global
	}{
		{"SELECT n FROM counter WHERE id = 1", ""},
		{"SELECT count(*) FROM counter", ""},
		{"SELECT sum(n), count(*) FROM counter", ""},
		{"SELECT sum(n)::text || ' ' || count(*)::text FROM counter", "public.counter"},
		{"SELECT string_agg(t::text, E'\\n' ORDER BY t::text) FROM public.counter t", ""},
		{"SELECT string_agg(t::text, ',') FROM counter t", "public.counter"},
		{"SELECT string_agg(id::text, ',' ORDER BY n) FROM counter", "public.counter"},
		{"SELECT array_agg(id ORDER BY id) FROM counter", ""},
		{"SELECT array_agg(id) FROM counter", "public.counter"},
		{"SELECT id FROM counter LIMIT 1", "public.counter"},
		{"SELECT count(*) FROM counter WHERE id = (SELECT id FROM counter LIMIT 1)", "public.counter"},
		{"SELECT sum(f) FROM fl", "public.fl"},
		{"SELECT min(n) FROM fl", "public.fl"},
		// max of a key is planned as an index scan under a LIMIT in an
		// InitPlan: blind in fact, judged not (coarser is allowed).
		{"SELECT max(id) FROM fl", "public.fl"},
		{"SELECT max(f::int) FROM fl", ""},
		{"SELECT count(*) FROM counter c JOIN products p ON p.id = c.id", ""},
		{"SELECT bump()", "all"},
		// Ordered by the primary key: the order and a Limit's rows are
		// the data's (goose's version table).
		{"SELECT id FROM counter ORDER BY id DESC", ""},
		{"SELECT id FROM counter ORDER BY id DESC LIMIT 1", ""},
		{"SELECT id FROM counter ORDER BY n", "public.counter"},
		{"SELECT id FROM counter ORDER BY n LIMIT 1", "public.counter"},
		// InitPlans each blind (the demo's invariant).
		{"SELECT (SELECT count(*) FROM products), (SELECT n FROM counter WHERE id = 1)", ""},
		{"SELECT (SELECT count(*) FROM products), (SELECT n FROM counter LIMIT 1)", "public.counter,public.products"},
		{"SELECT (SELECT string_agg(id::text, ',') FROM products)", "public.products"},
	} {
		rels, all := c.PlacementReads(ctx, tc.sql)
		got := strings.Join(rels, ",")
		if all {
			got = "all"
		}
		if got != tc.want {
			t.Errorf("PlacementReads(%q) = %q, want %q", tc.sql, got, tc.want)
		}
	}
}

func TestHarmlessSession(t *testing.T) {
	for sql, want := range map[string]bool{
		"SET work_mem = '64MB'":          true,
		"SET LOCAL work_mem = '64MB'":    true,
		"SHOW TimeZone":                  true,
		"RESET work_mem":                 true,
		"RESET ALL":                      false,
		"SET search_path = s2":           false,
		"SET synchronize_seqscans = off": false,
		"SET ROLE app":                   false,
		"SET SESSION AUTHORIZATION app":  false,
		"SELECT 1":                       false,
		"SET work_mem = 1; SELECT 1":     false,
	} {
		if got := HarmlessSession(sql); got != want {
			t.Errorf("HarmlessSession(%q) = %v, want %v", sql, got, want)
		}
	}
}

// TestLexLikePostgres: an operator ends where a comment begins and gives
// up a trailing + or -; identifiers are cut to 63 bytes (review I).
func TestLexLikePostgres(t *testing.T) {
	stmts, ok := lex("UPDATE t SET v = v +-- from\n 1, id = 3")
	if !ok || len(stmts) != 1 {
		t.Fatalf("lex: %v %v", stmts, ok)
	}
	var texts []string
	for _, tk := range stmts[0] {
		texts = append(texts, tk.text)
	}
	if got := strings.Join(texts, " "); got != "update t set v = v + 1 , id = 3" {
		t.Errorf("tokens %q", got)
	}
	stmts, _ = lex("SELECT 1 =- 2, 3 @- 4")
	texts = nil
	for _, tk := range stmts[0] {
		texts = append(texts, tk.text)
	}
	if got := strings.Join(texts, " "); got != "select 1 = - 2 , 3 @- 4" {
		t.Errorf("tokens %q", got)
	}
	long := strings.Repeat("a", 70)
	stmts, _ = lex("SELECT " + long + `, "` + strings.Repeat("é", 40) + `"`)
	if got := stmts[0][1].text; got != strings.Repeat("a", 63) {
		t.Errorf("bare identifier %d bytes", len(got))
	}
	if got := stmts[0][3].text; got != strings.Repeat("é", 31) {
		t.Errorf("quoted identifier %q (%d bytes), want 31 é", got, len(got))
	}
}

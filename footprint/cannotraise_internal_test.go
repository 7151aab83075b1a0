package footprint

import "testing"

// TestCannotRaise: the conditions an EXISTS over the catalogs may have
// and stay blind to row order (existsOverCatalogs).
func TestCannotRaise(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want bool
	}{
		{`(c.relname = 'goose_db_version'::name)`, true},
		{`(c.relkind = ANY ('{r,p}'::"char"[]))`, true},
		{`(("current_schema"() IS NULL) OR (n.nspname = "current_schema"()))`, true},
		{`(n.oid = c.relnamespace)`, true},
		{`(c.relname = 'x'::character varying)`, true},
		{`c.oid`, true},
		{`((c.relname)::text = 'x'::text)`, false},  // a cast of a column may raise
		{`((c.relnatts / 0) > 1)`, false},           // arithmetic may raise
		{`(c.relname ~~ 'x%'::text)`, false},        // LIKE: not on the list
		{`(c.relname = $1)`, false},                 // cannotRaise alone: a parameter may be a subplan's
		{`(SubPlan 1)`, false},                      // a sublink
		{`(c.oid = to_regclass('x'::text))`, false}, // a call that may raise
		{`(c.relname = (InitPlan 1).col1)`, false},  // another plan's value
		{`relname`, false},                          // an unqualified word
		{`(c.reltuples > '1'::real)`, true},
	} {
		if got := cannotRaise(tc.expr); got != tc.want {
			t.Errorf("cannotRaise(%s) = %v, want %v", tc.expr, got, tc.want)
		}
	}
}

// TestCastShowsCounter: which casts in a plan may show an oid or a
// transaction id an actor drew (Statement.Counter).
func TestCastShowsCounter(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want bool
	}{
		{`(d.classoid = '2613'::oid)`, false}, // a catalog's own oid
		{`CASE WHEN (s.setdatabase = '0'::oid) THEN 1 END`, false},
		{`(c.oid = '16412'::oid)`, true}, // a user object's oid
		{`(a.atttypid = ANY ('{1184,1114}'::oid[]))`, false},
		{`(a.atttypid = ANY ('{1184,16500}'::oid[]))`, true},
		{`'w1'::regclass`, false},      // prints as the name
		{`(c.relfilenode)::oid`, true}, // a cast of a column
		{`(x.v)::text::xid`, true},
		{`'5'::xid`, true},
		{`(t.v = 3)`, false},
	} {
		if got := castShowsCounter(tc.expr); got != tc.want {
			t.Errorf("castShowsCounter(%s) = %v, want %v", tc.expr, got, tc.want)
		}
	}
}

// TestCounterText: the text of a statement that names a counter, and of
// statements that do not (the differential's own catalog joins, goose's).
func TestCounterText(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want bool
	}{
		{"SELECT xmin FROM a", true},
		{"SELECT 'w2'::regclass::oid::int8 - 'w1'::regclass::oid::int8", true},
		{"SELECT x::oid FROM t", true},
		{"SELECT CAST(x AS xid) FROM t", true},
		{"SELECT * FROM pg_locks", true},
		{"SELECT pg_stat_get_backend_activity_start(1)", true},
		{"SELECT query_to_xml(format('SELECT %smin FROM a', 'x'), false, false, '')", true},
		{"SELECT * FROM heap_page_items(get_raw_page('a', 0))", true},
		{"SELECT bt_page_items('i', 1)", true},
		{`SELECT 1::U&"\006Fid"`, true},
		{"SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace", false},
		{"SELECT EXISTS ( SELECT 1 FROM pg_tables WHERE tablename = 'goose_db_version' )", false},
		{"SELECT id FROM bt_orders", false},
		{"SELECT xid FROM events", false},
		{"SELECT 'xmin is a word in a string'", false},
	} {
		if got := CounterText(tc.sql); got != tc.want {
			t.Errorf("CounterText(%q) = %v, want %v", tc.sql, got, tc.want)
		}
	}
}

// TestIdentityLookupsShowNoCounter: an oid passed to a privilege or
// visibility function names its object, as in an equality; the same oid
// compared, cast or computed with still shows the counter
// (golang-migrate's information_schema.tables check was left unjudged).
func TestIdentityLookupsShowNoCounter(t *testing.T) {
	for _, tc := range []struct {
		filter string
		want   bool
	}{
		{`((c.relkind = ANY ('{r,v,f,p}'::"char"[])) AND (pg_has_role(c.relowner, 'USAGE'::text) OR has_table_privilege(c.oid, 'SELECT'::text) OR has_any_column_privilege(c.oid, 'SELECT'::text)))`, false},
		{`((NOT pg_is_other_temp_schema(nc.oid)) AND (nc.nspname = $0))`, false},
		{`pg_table_is_visible(c.oid)`, false},
		{`(has_table_privilege(c.oid, 'SELECT'::text) AND (c.oid > '16384'::oid))`, true},
		{`has_table_privilege((c.oid + 1), 'SELECT'::text)`, true},
		{`has_table_privilege(c.oid, 'SELECT'::text) OR (c.oid < t.oid)`, true},
		{`my_lookup(c.oid)`, true},
		{`xhas_table_privilege(c.oid, 'SELECT'::text)`, true},
	} {
		plan := map[string]any{"Node Type": "Seq Scan", "Filter": tc.filter}
		got := showsCounter(plan, Set{"pg_catalog.pg_class": true}, nil) != ""
		if got != tc.want {
			t.Errorf("showsCounter(Filter %s) = %v, want %v", tc.filter, got, tc.want)
		}
	}
}

// TestOrderedByKey: only the text's outermost ORDER BY, on the key alone,
// proves the order a key's index scan gave.
func TestOrderedByKey(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want bool
	}{
		{"SELECT version_id, is_applied FROM goose_db_version ORDER BY id DESC", true},
		{"SELECT * FROM t ORDER BY t.id LIMIT 1", true},
		{`SELECT * FROM t ORDER BY "id", v`, true},
		{"SELECT * FROM t WHERE id BETWEEN 1 AND 3", false},
		{"SELECT * FROM (SELECT * FROM t ORDER BY id) s", false},
		{"SELECT * FROM t ORDER BY v, id", false},
		{"SELECT * FROM t ORDER BY id % 2", false},
		{"SELECT * FROM t ORDER BY id::text", false},
		{"SELECT row_number() OVER (ORDER BY id) FROM t", false},
		{"SELECT * FROM t ORDER BY 1", false},
	} {
		if got := orderedByKey(tc.sql, "id"); got != tc.want {
			t.Errorf("orderedByKey(%s) = %v, want %v", tc.sql, got, tc.want)
		}
	}
}

// TestConditionsCannotRaise: a plan is judged blind only where none of its
// conditions may raise an error; privilege and visibility lookups of a
// column's object may not.
func TestConditionsCannotRaise(t *testing.T) {
	leaf := func(cond string) map[string]any {
		return map[string]any{"Node Type": "Aggregate", "Plans": []any{map[string]any{"Node Type": "Seq Scan", "Filter": cond}}}
	}
	for _, tc := range []struct {
		cond string
		want bool
	}{
		{`(t.v >= 0)`, true},
		{`(('a'::text ~ t.r) AND (t.k = 1))`, false},
		{`((c.relkind = ANY ('{r,v,f,p}'::"char"[])) AND (pg_has_role(c.relowner, 'USAGE'::text) OR has_table_privilege(c.oid, 'SELECT'::text)))`, true},
		{`((NOT pg_is_other_temp_schema(nc.oid)) AND (nc.nspname = $0))`, true},
		{`((1 / t.v) > 0)`, false},
		{`(lower(t.r) = 'x'::text)`, false},
		{`public.has_table_privilege(c.oid, 'SELECT'::text)`, false},
	} {
		if got := conditionsCannotRaise(leaf(tc.cond)); got != tc.want {
			t.Errorf("conditionsCannotRaise(%s) = %v, want %v", tc.cond, got, tc.want)
		}
	}
}

// TestChangesSession: the invariant statements that change the session
// the classifier follows.
func TestChangesSession(t *testing.T) {
	for _, tc := range []struct {
		sql     string
		session bool
	}{
		{"SELECT count(*) FROM t", false},
		{"SET work_mem = '4MB'; RESET search_path", true},
		{"SET work_mem = '4MB'; BEGIN; SET LOCAL search_path = s2", true},
		{"SET ROLE alice", true},
		{"SET SESSION AUTHORIZATION alice", true},
		{"SHOW search_path", false},
		{"SET work_mem = '4MB'", false},
	} {
		if got := ChangesSession(tc.sql); got != tc.session {
			t.Errorf("ChangesSession(%s) = %v, want %v", tc.sql, got, tc.session)
		}
	}
}

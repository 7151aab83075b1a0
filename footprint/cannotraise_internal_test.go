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
		{`(c.relname = $1)`, false},                 // a parameter of any type
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

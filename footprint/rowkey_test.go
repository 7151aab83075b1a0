package footprint

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

func TestConjuncts(t *testing.T) {
	for in, want := range map[string]string{
		"(id = 1)":               "id = 1",
		"((id = 1) AND (n > 0))": "id = 1|n > 0",
		"((t.id = $1) AND ((n)::text = 'a AND (id = 2)'))": "t.id = $1|(n)::text = 'a AND (id = 2)'",
		"((id = 1) OR (id = 2))":                           "(id = 1) OR (id = 2)",
		"(id = 1) AND (n = 2)":                             "id = 1|n = 2",
		"('unterminated":                                   "",
	} {
		if got := strings.Join(conjuncts(in), "|"); got != want {
			t.Errorf("conjuncts(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestKeyOfAScanCondition(t *testing.T) {
	for _, tc := range []struct {
		alias, cond, want string
	}{
		{"counter", "(counter.id = 1)", "=1"},
		{"counter", "(id = 1)", "=1"},
		{"c", "((c.id = $2) AND (c.n > 0))", "$2"},
		{"counter", "(counter.id = '-7'::integer)", "=-7"},
		{"counter", "(counter.id = '7'::bigint)", "=7"},
		{"counter", "(other.id = 1)", ""},                         // another relation's column
		{"counter", "((counter.id = 1) OR (counter.id = 2))", ""}, // two rows
		{"counter", "(counter.id = ANY ('{1,2}'::integer[]))", ""},
		{"counter", "((counter.id)::numeric = 1.5)", ""},
		{"counter", "(counter.id = (counter.n + 1))", ""},
		{"counter", "(counter.id = $0)", ""},
		{"Counter", `("Counter".id = 3)`, "=3"},
	} {
		got := keyOf(scanNode{alias: tc.alias, conds: []string{tc.cond}}, "id")
		if got != tc.want {
			t.Errorf("keyOf(%s, %q) = %q, want %q", tc.alias, tc.cond, got, tc.want)
		}
	}
}

func TestIntParam(t *testing.T) {
	for _, tc := range []struct {
		text   string
		isText bool
		bin    []byte
		want   string
		ok     bool
	}{
		{"42", true, nil, "42", true},
		{" 42 ", true, nil, "42", true},
		{"+42", true, nil, "42", true},
		{"-0", true, nil, "0", true},
		{"4.2", true, nil, "", false},
		{"", true, nil, "", false},
		{"++1", true, nil, "", false},
		{"", false, []byte{0, 0, 0, 42}, "42", true},
		{"", false, []byte{0xff, 0xff, 0xff, 0xfe}, "-2", true},
		{"", false, []byte{0, 0, 0, 0, 0, 0, 1, 0}, "256", true},
		{"", false, []byte{0xff, 0xfe}, "-2", true},
		{"", false, []byte{1, 2, 3}, "", false},
	} {
		got, ok := IntParam(tc.text, tc.isText, tc.bin)
		if got != tc.want || ok != tc.ok {
			t.Errorf("IntParam(%q, %v, %v) = %q, %v; want %q, %v", tc.text, tc.isText, tc.bin, got, ok, tc.want, tc.ok)
		}
	}
}

// TestRowKeysFromPostgreSQLsPlans: which statements name one row, on the
// tables that qualify, and which keep the whole table.
func TestRowKeysFromPostgreSQLsPlans(t *testing.T) {
	c, ctx := classifier(t)
	if _, err := c.conn.Exec(ctx, `
		CREATE TABLE acct (id int PRIMARY KEY, bal int NOT NULL);
		CREATE TABLE uacct (id int PRIMARY KEY, email text UNIQUE);
		CREATE TABLE tacct (name text PRIMARY KEY);
		CREATE TABLE sacct (id serial PRIMARY KEY, bal int);
		CREATE TABLE pair (a int, b int, PRIMARY KEY (a, b));`); err != nil {
		t.Fatal(err)
	}
	for sql, want := range map[string]string{
		"UPDATE acct SET bal = bal + 1 WHERE id = 1":                             "public.acct=1",
		"UPDATE acct SET bal = $1 WHERE id = $2":                                 "public.acct$2",
		"SELECT bal FROM acct WHERE id = 3 FOR UPDATE":                           "public.acct=3",
		"SELECT bal FROM acct a WHERE a.id = $1":                                 "public.acct$1",
		"DELETE FROM acct WHERE id = 2":                                          "public.acct=2",
		"UPDATE acct SET bal = 0 WHERE id = 1 AND bal > 5":                       "public.acct=1",
		"UPDATE sacct SET bal = 0 WHERE id = 1":                                  "public.sacct=1",
		"UPDATE acct SET id = 5 WHERE id = 1":                                    "",
		"UPDATE acct SET (id, bal) = (5, 0) WHERE id = 1":                        "",
		"UPDATE acct SET bal = 1 WHERE id = 1 OR id = 2":                         "",
		"UPDATE acct SET bal = 1 WHERE id IN (1, 2)":                             "",
		"INSERT INTO acct VALUES (1, 0)":                                         "",
		"UPDATE acct SET bal = (SELECT bal FROM acct WHERE id = 2) WHERE id = 1": "",
		"SELECT bal FROM acct WHERE id = (SELECT max(id) FROM acct)":             "",
		"UPDATE uacct SET email = 'x' WHERE id = 1":                              "",
		"UPDATE tacct SET name = name WHERE name = 'a'":                          "",
		"UPDATE counter SET n = 1 WHERE id = 1":                                  "public.counter=1",
		"UPDATE products SET stock = 0 WHERE id = 1":                             "public.products=1", // orders references it: only RI triggers
		"UPDATE orders SET qty = 2 WHERE id = 1":                                 "public.orders=1",   // it references products
		"UPDATE logged SET id = 2 WHERE id = 1":                                  "",                  // a user trigger
		"UPDATE pair SET a = a WHERE a = 1 AND b = 2":                            "",
		// An INSERT of one row locks the one parent row its foreign key names.
		"INSERT INTO orders (product, qty) VALUES ($1, 1)":                                "public.products$1",
		"INSERT INTO orders (qty, product) VALUES (1, 2) RETURNING id":                    "public.products=2",
		"INSERT INTO orders (product, qty) VALUES ($1, 1), ($2, 1)":                       "",
		"INSERT INTO orders (product, qty) VALUES ($1::int, 1)":                           "",
		"INSERT INTO orders (product, qty) VALUES (NULL, 1)":                              "",
		"INSERT INTO orders VALUES (1, 2, 3)":                                             "",
		"INSERT INTO orders (product, qty) VALUES (2, 1) ON CONFLICT DO NOTHING":          "",
		"INSERT INTO orders (product, qty) SELECT id, 1 FROM products":                    "",
		"SELECT n FROM counter WHERE id = 1 UNION ALL SELECT n FROM counter WHERE id = 2": "",
	} {
		ss := c.Classify(ctx, sql)
		if len(ss) != 1 {
			t.Fatalf("%s: %d statements", sql, len(ss))
		}
		var got []string
		for rel, tmpl := range ss[0].Keys {
			got = append(got, rel+tmpl)
		}
		sort.Strings(got)
		if g := strings.Join(got, " "); g != want {
			t.Errorf("%s: keys %q, want %q (statement %+v)", sql, g, want, ss[0])
		}
	}
	// The sequence behind a serial key is not written by an UPDATE by key.
	s := c.Classify(ctx, "UPDATE sacct SET bal = 0 WHERE id = 1")[0]
	if fmt.Sprint(s.Writes) != "[public.sacct]" {
		t.Errorf("UPDATE sacct by key writes %v", s.Writes)
	}
	r := ResolveKeys(s, nil)
	if fmt.Sprint(r.Writes) != fmt.Sprint([]string{RowName("public.sacct", "1")}) || fmt.Sprint(s.Writes) != "[public.sacct]" {
		t.Errorf("ResolveKeys: %q (the cached statement: %q)", r.Writes, s.Writes)
	}
	p := ResolveKeys(c.Classify(ctx, "UPDATE acct SET bal = $1 WHERE id = $2")[0], func(n int) (string, bool) {
		return map[int]string{2: "7"}[n], n == 2
	})
	if fmt.Sprint(p.Writes) != fmt.Sprint([]string{RowName("public.acct", "7")}) {
		t.Errorf("ResolveKeys with a parameter: %q", p.Writes)
	}
}

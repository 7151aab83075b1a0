package footprint

import (
	"context"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Row keys: a statement that reads, locks, updates or deletes one row of a
// table by its primary key touches that row only, and two such statements
// on different rows commute (docs/search.md, "Rows"). Only where nothing
// else can make them meet:
//   - the table is plain (no partitions, no inheritance, not temporary), with
//     no triggers at all (which also rules out foreign keys either way: they
//     are triggers), no rules, no row security, no function in a default,
//     check or index;
//   - its primary key is one integer column, and it has no other unique or
//     exclusion index (an INSERT or an UPDATE of another unique column
//     waits on another row with the same value; a DELETE frees one);
//   - the plan scans the table once, and a top-level conjunct of that scan's
//     condition is key = constant or key = $n (an external parameter: the
//     plan has no subplan whose output parameters could be named so);
//   - an UPDATE does not name the key column in its SET list (a row whose
//     key changes is two rows).
// INSERT and MERGE keep the whole table. SERIALIZABLE transactions compare
// whole tables whatever the keys (predicate locks may cover pages or the
// relation: a serialization failure between two rows is real behaviour).

// RowName names one row of relation rel: rel, a NUL byte, the key.
func RowName(rel, key string) string { return rel + "\x00" + key }

// SplitName splits a name into its relation and row key ("" for the whole
// relation).
func SplitName(name string) (rel, key string) {
	rel, key, _ = strings.Cut(name, "\x00")
	return rel, key
}

// loadKeys fills cat.keys: the tables whose rows a statement may name by
// key, and the key column as EXPLAIN prints it.
func (c *Classifier) loadKeys(ctx context.Context, cat *catalog) error {
	rows, err := c.conn.Query(ctx, `
		SELECT format('%s.%s', n.nspname, c.relname), quote_ident(a.attname), a.attname
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		JOIN pg_index i ON i.indrelid = c.oid AND i.indisprimary
		JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = i.indkey[0]
		WHERE c.relkind = 'r' AND c.relpersistence IN ('p', 'u') AND NOT c.relispartition AND NOT c.relhassubclass
		  AND NOT EXISTS (SELECT 1 FROM pg_trigger t WHERE t.tgrelid = c.oid
		    AND NOT (t.tgisinternal AND t.tgfoid IN (SELECT p.oid FROM pg_proc p WHERE p.proname LIKE 'RI\_FKey\_%')))
		  AND NOT c.relhasrules AND NOT c.relrowsecurity AND i.indimmediate
		  AND i.indnkeyatts = 1 AND i.indnatts = 1 AND i.indexprs IS NULL AND i.indpred IS NULL
		  AND a.atttypid IN ('int2'::regtype, 'int4'::regtype, 'int8'::regtype) AND a.attgenerated = ''
		  AND NOT EXISTS (SELECT 1 FROM pg_index o WHERE o.indrelid = c.oid AND NOT o.indisprimary AND (o.indisunique OR o.indisexclusion))
		  AND NOT EXISTS (SELECT 1 FROM pg_inherits h WHERE h.inhrelid = c.oid OR h.inhparent = c.oid)`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var rel, col, raw string
		if err := rows.Scan(&rel, &col, &raw); err != nil {
			return err
		}
		cat.keys[rel] = col
		cat.keyNames[rel] = raw
	}
	if err := rows.Err(); err != nil {
		return err
	}
	// The names of views: an UPDATE through one names the table's
	// columns by the view's names (updateTarget).
	cat.views = map[string]bool{}
	vrows, err := c.conn.Query(ctx, `SELECT relname FROM pg_class WHERE relkind = 'v'`)
	if err != nil {
		return err
	}
	defer vrows.Close()
	for vrows.Next() {
		var name string
		if err := vrows.Scan(&name); err != nil {
			return err
		}
		cat.views[name] = true
	}
	return vrows.Err()
}

// updatesTableItself reports whether an UPDATE's target as written is
// rel ("schema.name") itself and not a view over it: the name is rel's,
// schema-qualified as rel is, or unqualified where no view has that name
// in any schema (search_path could resolve it to one). Through a view
// the SET list names the table's columns by the view's names, so whether
// the key changes cannot be read from it.
func updatesTableItself(cat *catalog, ts []token, rel string) bool {
	// A WITH first: ts[1] is a CTE's name, not the target (case
	// ri-key-view-behind-cte-named-like-table).
	if len(ts) == 0 || ts[0].kind != tokWord || ts[0].text != "update" {
		return false
	}
	i := 1
	if i < len(ts) && ts[i].kind == tokWord && ts[i].text == "only" {
		i++
	}
	ident := func(t token) bool { return t.kind == tokWord || t.kind == tokQuoted }
	if i >= len(ts) || !ident(ts[i]) {
		return false
	}
	if i+2 < len(ts) && ts[i+1].kind == tokPunct && ts[i+1].text == "." && ident(ts[i+2]) {
		return ts[i].text+"."+ts[i+2].text == rel
	}
	name := ts[i].text
	return strings.HasSuffix(rel, "."+name) && !cat.views[name]
}

// insertsTableItself is updatesTableItself for INSERT INTO.
func insertsTableItself(cat *catalog, ts []token, rel string) bool {
	if len(ts) < 3 || ts[0].kind != tokWord || ts[0].text != "insert" || ts[1].kind != tokWord || ts[1].text != "into" {
		return false
	}
	ident := func(t token) bool { return t.kind == tokWord || t.kind == tokQuoted }
	if !ident(ts[2]) {
		return false
	}
	if len(ts) > 4 && ts[3].kind == tokPunct && ts[3].text == "." && ident(ts[4]) {
		return ts[2].text+"."+ts[4].text == rel
	}
	return strings.HasSuffix(rel, "."+ts[2].text) && !cat.views[ts[2].text]
}

// scanNode is one scan of a relation in a plan.
type scanNode struct {
	alias string
	conds []string
}

// planScans collects, by relation, the plan's scans (ModifyTable nodes
// apart) and the operation of each ModifyTable node; subplans says whether
// any node is a subplan or an initplan (whose outputs EXPLAIN prints as $n
// too).
func planScans(node map[string]any, scans map[string][]scanNode, ops map[string]string, subplans *bool) {
	if _, ok := node["Subplan Name"]; ok {
		*subplans = true
	}
	typ, _ := node["Node Type"].(string)
	if rel, ok := node["Relation Name"].(string); ok {
		schema, _ := node["Schema"].(string)
		name := schema + "." + rel
		if typ == "ModifyTable" {
			op, _ := node["Operation"].(string)
			if prev, seen := ops[name]; seen && prev != op {
				op = "several"
			}
			ops[name] = op
		} else {
			sn := scanNode{}
			sn.alias, _ = node["Alias"].(string)
			for _, k := range []string{"Index Cond", "Filter", "Recheck Cond"} {
				if s, ok := node[k].(string); ok {
					sn.conds = append(sn.conds, s)
				}
			}
			scans[name] = append(scans[name], sn)
		}
	}
	for _, v := range node {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				if m, ok := e.(map[string]any); ok {
					planScans(m, scans, ops, subplans)
				}
			}
		case map[string]any:
			planScans(x, scans, ops, subplans)
		}
	}
}

// rowKeys gives, for the relations of the plan that one statement touches
// by key, the key as a template: "=N" for a constant, "$n" for a
// parameter of the statement.
func rowKeys(cat *catalog, plan map[string]any, ts []token) map[string]string {
	if len(cat.keys) == 0 {
		return nil
	}
	scans, ops := map[string][]scanNode{}, map[string]string{}
	subplans := false
	planScans(plan, scans, ops, &subplans)
	var out map[string]string
	for rel, ss := range scans {
		col, ok := cat.keys[rel]
		if !ok || len(ss) != 1 {
			continue
		}
		if _, bad := cat.complex[rel]; bad {
			continue
		}
		switch ops[rel] {
		case "", "Update", "Delete":
		default:
			continue
		}
		if ops[rel] == "Update" && (setsColumn(ts, cat.keyNames[rel]) || !updatesTableItself(cat, ts, rel)) {
			continue
		}
		tmpl := keyOf(ss[0], col)
		if tmpl == "" || (subplans && tmpl[0] == '$') || !scanCannotRaise(ss[0], col, cat.unsafeCompare, paramsCannotRaise(plan)) {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[rel] = tmpl
	}
	return out
}

// scanCannotRaise: no condition of the scan may raise an error. A Seq
// Scan evaluates every condition on every row, in the order of their
// costs, the key's equality perhaps after another one: a condition that
// raises on another row's data makes the statement touch that row (cases
// rs-keyed-read-filter-error-other-row,
// rs-keyed-update-filter-error-other-row).
// Where the database has columns whose comparisons may raise
// (unsafeCompareSQL), only the key's own equality is allowed.
func scanCannotRaise(sn scanNode, col string, unsafe, params bool) bool {
	for _, c := range sn.conds {
		parts := conjuncts(c)
		if parts == nil {
			parts = []string{c}
		}
		for _, part := range parts {
			if keyOf(scanNode{alias: sn.alias, conds: []string{part}}, col) != "" {
				continue
			}
			if unsafe || !cannotRaiseWith(part, params) {
				return false
			}
		}
	}
	return true
}

// keyOnly reports a plan with one scan of one keyed relation, whose only
// condition is its key's equality (Statement.KeyOnly).
func keyOnly(cat *catalog, plan map[string]any) bool {
	scans, ops := map[string][]scanNode{}, map[string]string{}
	subplans := false
	planScans(plan, scans, ops, &subplans)
	if subplans || len(scans) != 1 {
		return false
	}
	for rel, ss := range scans {
		col, ok := cat.keys[rel]
		if !ok || len(ss) != 1 {
			return false
		}
		n := 0
		for _, cond := range ss[0].conds {
			n += len(conjuncts(cond))
		}
		return n == 1 && keyOf(ss[0], col) != ""
	}
	return false
}

// keyOf finds key = constant among the top-level conjuncts of a scan's
// conditions.
func keyOf(sn scanNode, col string) string {
	qual := quoteIdent(sn.alias) + "."
	for _, cond := range sn.conds {
		for _, part := range conjuncts(cond) {
			lhs, rhs, ok := strings.Cut(part, " = ")
			if !ok || (lhs != col && lhs != qual+col) {
				continue
			}
			if m := keyParam.FindStringSubmatch(rhs); m != nil {
				return "$" + m[1]
			}
			if m := keyConst.FindStringSubmatch(rhs); m != nil {
				v := m[1] + m[2]
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					continue
				}
				return "=" + strconv.FormatInt(n, 10)
			}
		}
	}
	return ""
}

var (
	keyParam = regexp.MustCompile(`^\$([1-9][0-9]*)$`)
	// 42, or '-42'::integer (bigint, smallint): how EXPLAIN prints an
	// integer constant.
	keyConst = regexp.MustCompile(`^(?:(-?[0-9]+)|'(-?[0-9]+)'::(?:integer|bigint|smallint))$`)
)

// conjuncts splits a condition EXPLAIN printed, "((a = 1) AND (b > 2))" or
// "(a = 1)", into its top-level conjuncts without their parentheses ("a =
// 1", "b > 2"). Anything else (OR, NOT, a bare expression) gives what it
// has, which matches no key.
func conjuncts(cond string) []string {
	cond = unwrap(cond)
	var parts []string
	start := 0
	ok := outside(cond, func(i, depth int) bool {
		if depth == 0 && i >= start && strings.HasPrefix(cond[i:], " AND ") {
			parts = append(parts, unwrap(cond[start:i]))
			start = i + len(" AND ")
		}
		return true
	})
	if !ok {
		return nil
	}
	return append(parts, unwrap(cond[start:]))
}

// unwrap removes one pair of parentheses around the whole of s.
func unwrap(s string) string {
	if len(s) < 2 || s[0] != '(' || s[len(s)-1] != ')' {
		return s
	}
	whole := true
	outside(s, func(i, depth int) bool {
		if depth == 0 && i < len(s)-1 {
			whole = false // the first parenthesis closed before the end
		}
		return whole
	})
	if !whole {
		return s
	}
	return s[1 : len(s)-1]
}

// outside calls f for each byte of s outside string constants, with the
// parenthesis depth after it, until f returns false; it reports whether s
// ends outside any string and parenthesis.
func outside(s string, f func(i, depth int) bool) bool {
	depth := 0
	inStr := false
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case inStr:
			inStr = ch != '\''
			continue
		case ch == '\'':
			inStr = true
			continue
		case ch == '(':
			depth++
		case ch == ')':
			depth--
		}
		if !f(i, depth) {
			return false
		}
	}
	return !inStr && depth == 0
}

// quoteIdent quotes an identifier as EXPLAIN prints it where it must (a
// name that is not all lower-case letters, digits and underscores); a
// keyword that EXPLAIN would quote too is not matched, which only loses
// a key.
func quoteIdent(s string) string {
	plain := s != "" && (s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z'))
	for i := 0; plain && i < len(s); i++ {
		ch := s[i]
		plain = ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')
	}
	if plain {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// setsColumn reports whether an UPDATE's SET list (the tokens between SET
// and the next FROM, WHERE or RETURNING at its depth) may name the column
// called name in the catalog.
func setsColumn(ts []token, name string) bool {
	in := false
	depth := 0
	for i, t := range ts {
		if !in {
			if t.kind == tokWord && t.text == "set" {
				in, depth = true, t.depth
			}
			continue
		}
		// IS [NOT] DISTINCT FROM is an expression's FROM, not the
		// clause's (case ri-key-set-after-distinct-from).
		if t.depth == depth && t.kind == tokWord && (t.text == "from" && (i == 0 || ts[i-1].text != "distinct") || t.text == "where" || t.text == "returning") {
			in = false
			continue
		}
		// A bare word is folded as PostgreSQL folds it (lex), a quoted
		// one is exact, and a U& identifier may be anything.
		if (t.kind == tokWord || t.kind == tokQuoted) && t.text == name {
			return true
		}
		if t.kind == tokQuoted && strings.HasPrefix(t.text, unicodeIdent) {
			return true
		}
		// DEFAULT in a SET list may call a sequence; a key named any other
		// way (a row constructor's column list) is found above.
	}
	return false
}

// ResolveKeys returns s with each relation it touches by key renamed to
// that row (RowName), the key's parameters read through param (the n-th
// parameter of the statement as a decimal integer, and whether it is
// one). A key that cannot be resolved leaves its relation whole. s itself
// (shared by a cache) is not changed.
func ResolveKeys(s Statement, param func(n int) (string, bool)) Statement {
	if len(s.Keys) == 0 {
		return s
	}
	rows := map[string]string{}
	for rel, tmpl := range s.Keys {
		switch {
		case strings.HasPrefix(tmpl, "="):
			rows[rel] = RowName(rel, tmpl[1:])
		case strings.HasPrefix(tmpl, "$") && param != nil:
			n, err := strconv.Atoi(tmpl[1:])
			if err != nil {
				continue
			}
			if v, ok := param(n); ok {
				rows[rel] = RowName(rel, v)
			}
		}
	}
	if len(rows) == 0 {
		return s
	}
	rename := func(list []string) []string {
		out := make([]string, len(list))
		for i, r := range list {
			if row, ok := rows[r]; ok {
				r = row
			}
			out[i] = r
		}
		sort.Strings(out)
		return out
	}
	s.Reads, s.Writes, s.Locks = rename(s.Reads), rename(s.Writes), rename(s.Locks)
	return s
}

// IntParam reads a bound parameter as an integer key: a text value as
// PostgreSQL's integer input reads it (spaces around, an optional sign),
// or a binary int2, int4 or int8.
func IntParam(text string, isText bool, binary []byte) (string, bool) {
	if isText {
		t := strings.TrimSpace(text)
		t = strings.TrimPrefix(t, "+")
		n, err := strconv.ParseInt(t, 10, 64)
		if err != nil || t == "" || strings.HasPrefix(t, "+") {
			return "", false
		}
		return strconv.FormatInt(n, 10), true
	}
	var n int64
	switch len(binary) {
	case 2:
		n = int64(int16(uint16(binary[0])<<8 | uint16(binary[1])))
	case 4:
		n = int64(int32(uint32(binary[0])<<24 | uint32(binary[1])<<16 | uint32(binary[2])<<8 | uint32(binary[3])))
	case 8:
		for _, b := range binary {
			n = n<<8 | int64(b)
		}
	default:
		return "", false
	}
	return strconv.FormatInt(n, 10), true
}

// insertParentKeys adds to keys, for an INSERT of one VALUES row into w
// with a column list, the row of each parent its foreign keys check: the
// check locks that one row FOR KEY SHARE (RI_FKey_check), named by the
// value given for the referencing column, a constant integer or a
// parameter. Only single-column keys to a keyed parent (whose primary key
// they reference: it has no other unique index) that the statement names
// nowhere else; several keys to one parent must agree. Not with ON
// CONFLICT (its UPDATE may set another value) or any other clause but
// RETURNING after the row.
func insertParentKeys(cat *catalog, ts []token, w string, named Set, keys map[string]string) map[string]string {
	fks := cat.fkCols[w]
	if len(fks) == 0 || len(ts) < 4 || ts[0].text != "insert" || ts[1].text != "into" {
		return keys
	}
	// The target as written must be w itself, not a view that names its
	// columns otherwise (case ri-fk-value-through-view-renamed).
	if !insertsTableItself(cat, ts, w) {
		return keys
	}
	i := 2
	for i < len(ts) && ts[i].kind != tokPunct { // the table's name, maybe qualified
		i++
		if i < len(ts) && ts[i].kind == tokPunct && ts[i].text == "." {
			i++
		}
	}
	list := func(at int) (items []token, next int, ok bool) {
		if at >= len(ts) || ts[at].kind != tokPunct || ts[at].text != "(" {
			return nil, at, false
		}
		d := ts[at].depth
		j := at + 1
		for ; j < len(ts); j += 2 {
			if ts[j].depth != d+1 || (ts[j].kind == tokPunct && ts[j].text != "-") {
				return nil, j, false
			}
			items = append(items, ts[j])
			if j+1 >= len(ts) || ts[j+1].kind != tokPunct {
				return nil, j, false
			}
			if ts[j+1].text == ")" && ts[j+1].depth == d {
				return items, j + 2, true
			}
			if ts[j+1].text != "," {
				return nil, j, false
			}
		}
		return nil, j, false
	}
	cols, i, ok := list(i)
	if !ok || i >= len(ts) || ts[i].kind != tokWord || ts[i].text != "values" {
		return keys
	}
	vals, i, ok := list(i + 1)
	if !ok || len(vals) != len(cols) {
		return keys
	}
	if i < len(ts) && !(ts[i].kind == tokWord && ts[i].text == "returning") {
		return keys
	}
	tmpl := map[string]string{}
	bad := map[string]bool{}
	for _, fk := range fks {
		t := ""
		for k, c := range cols {
			if (c.kind == tokWord && (c.text == fk.col || quoteIdent(c.text) == fk.col)) || (c.kind == tokQuoted && quoteIdent(c.text) == fk.col) {
				switch v := vals[k]; v.kind {
				case tokParam:
					t = v.text
				case tokNumber:
					if n, err := strconv.ParseInt(v.text, 10, 64); err == nil {
						t = "=" + strconv.FormatInt(n, 10)
					}
				}
			}
		}
		if _, keyed := cat.keys[fk.parent]; !keyed || t == "" || named[fk.parent] || (tmpl[fk.parent] != "" && tmpl[fk.parent] != t) {
			bad[fk.parent] = true
			continue
		}
		tmpl[fk.parent] = t
	}
	for parent, t := range tmpl {
		if bad[parent] || keys[parent] != "" {
			continue
		}
		if keys == nil {
			keys = map[string]string{}
		}
		keys[parent] = t
	}
	return keys
}

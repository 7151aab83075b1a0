package footprint

import (
	"context"
	"regexp"
	"strings"
)

// PlacementReads returns the relations a statement run outside the actors
// (the invariant's) reads whole in a way whose result may show the order
// the heap keeps rows in: the order of two keyed writes to one relation,
// which no key names (engine/trace.go, observePlacement). all: the
// statement is global, it may read anything in any order. A relation is
// left out only where the plan shows a result blind to the order rows
// arrive in (orderBlind): an aggregate such as count(*) or sum() of
// integers over the whole relation.
func (c *Classifier) PlacementReads(ctx context.Context, sql string) (rels []string, all bool) {
	// Kept as the classifications are (staged until Keep), as one
	// statement whose Reads are the relations.
	key := "\x02placement\x00" + sql
	if s, ok := c.cached(key); ok && len(s) == 1 {
		return s[0].Reads, s[0].Kind == Global
	}
	rels, all = c.placementReads(ctx, sql)
	if ctx.Err() == nil {
		st := Statement{Kind: DML, Reads: rels}
		if all {
			st = Statement{Kind: Global}
		}
		c.stage(key, []Statement{st})
	}
	return rels, all
}

func (c *Classifier) placementReads(ctx context.Context, sql string) (rels []string, all bool) {
	sts := c.Classify(ctx, sql)
	for _, st := range sts {
		if st.Kind == Global {
			return nil, true
		}
		for _, set := range [][]string{st.Reads, st.Locks, st.Writes} {
			for _, n := range set {
				if strings.HasPrefix(n, "sequence ") || st.Keys[n] != "" {
					continue
				}
				rels = appendOnce(rels, n)
			}
		}
	}
	// A statement that writes (nextval numbers the rows in scan order:
	// case rn-inv-nextval-filter) is never blind.
	if len(rels) > 0 && len(sts) == 1 && len(sts[0].Writes) == 0 && c.orderBlind(ctx, sql) {
		return nil, false
	}
	return rels, false
}

// HarmlessSession reports SQL that is one SHOW, or one SET or RESET of a
// setting that changes neither what a statement names nor what its
// literals mean (harmlessParam): it reads no relation and leaves the
// session as the classifier has it. An invariant's other SETs make it
// read in a session the classifier does not follow (case
// rn-inv-set-search-path-scan).
func HarmlessSession(sql string) bool {
	stmts, ok := lex(sql)
	if !ok || len(stmts) != 1 || len(stmts[0]) < 2 {
		return false
	}
	ts := stmts[0]
	if ts[0].kind != tokWord {
		return false
	}
	switch ts[0].text {
	case "show":
		return true
	case "set", "reset":
		i := 1
		if ts[0].text == "set" && (ts[i].text == "session" || ts[i].text == "local") && i+1 < len(ts) {
			i++
		}
		return ts[i].kind == tokWord && harmlessParam(ts[i].text) && (i+1 == len(ts) || ts[i+1].kind != tokPunct || ts[i+1].text != ".")
	}
	return false
}

// ChangesSession reports SQL holding a SET, RESET or DISCARD that
// HarmlessSession would not accept alone (search_path, a role, session
// authorization, SET LOCAL of either): statements after it ran in a
// session the classifier does not follow, even if a later RESET or
// COMMIT undid it (cases xx-inv-search-path-reset, xx-inv-set-role-...).
func ChangesSession(sql string) bool {
	stmts, ok := lex(sql)
	if !ok {
		return true
	}
	for _, ts := range stmts {
		if len(ts) == 0 || ts[0].kind != tokWord {
			continue
		}
		switch ts[0].text {
		case "set", "reset", "discard":
			if !HarmlessSession(untokenize(ts)) {
				return true
			}
		}
	}
	return false
}

// HarmlessSetting is harmlessParam for the engine: a setting that changes
// neither what a statement names nor what its literals mean.
func HarmlessSetting(name string) bool { return harmlessParam(strings.ToLower(name)) }

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// Types whose equal values are identical, so that which of two equal
// values an aggregate keeps cannot show (numeric 1.0 and 1.00, float -0 and
// 0, interval '1 day' and '24 hours' are equal and print differently).
var identityEqual = map[uint32]bool{16: true, 20: true, 21: true, 23: true, 26: true, 1082: true, 1114: true, 1184: true, 2950: true}

// The same for text under deterministic collations only.
var textTypes = map[uint32]bool{25: true, 1043: true}

// Array types of those (array_agg's result).
var identityEqualArrays = map[uint32]uint32{1000: 16, 1016: 20, 1005: 21, 1007: 23, 1028: 26, 1182: 1082, 1115: 1114, 1185: 1184, 2951: 2950, 1009: 25, 1015: 1043}

var systemColumnWord = regexp.MustCompile(`(?i)\b(ctid|xmin|xmax|cmin|cmax)\b`)

// orderBlind reports a statement whose result cannot depend on the order
// its scans return rows in: its plan is one Aggregate without GROUP BY at
// the root (a parallel plan's Finalize over Partial aggregates), no Limit,
// window, sublink or other aggregate below it, no system column anywhere,
// and every output one call of an aggregate that is blind to order for its
// result type: count; sum and avg giving bigint or numeric (exact
// arithmetic); min, max, bool_and, bool_or and every of a type whose equal
// values are identical; string_agg and array_agg ordered by their own
// argument. Anything else may show the order.
func (c *Classifier) orderBlind(ctx context.Context, sql string) bool {
	plan, err := c.explain(ctx, sql)
	if err != nil {
		return false
	}
	return c.orderBlindPlan(ctx, sql, plan)
}

// orderBlindPlan is orderBlind with the statement's plan.
func (c *Classifier) orderBlindPlan(ctx context.Context, sql string, plan map[string]any) bool {
	cat, err := c.loadCatalog(ctx)
	if err != nil || planHasSystemColumn(plan) || !conditionsCannotRaise(plan) || cat.unsafeCompare && hasCondition(plan) {
		return false
	}
	// A LIMIT over an aggregate without GROUP BY keeps or drops its one
	// row whatever order rows arrive in (golang-migrate's SELECT COUNT(1)
	// FROM information_schema.tables ... LIMIT 1).
	if plan["Node Type"] == "Limit" {
		if ps, _ := plan["Plans"].([]any); len(ps) == 1 {
			if child, _ := ps[0].(map[string]any); child != nil && child["Node Type"] == "Aggregate" && child["Strategy"] == "Plain" {
				plan = child
			}
		}
	}
	switch {
	case plan["Node Type"] == "Result" && plan["Relation Name"] == nil && plan["One-Time Filter"] == nil:
		// SELECT (SELECT count(*) FROM orders), (SELECT stock FROM items
		// WHERE id = 1): each output an InitPlan's, each InitPlan blind.
		ps, _ := plan["Plans"].([]any)
		outs, _ := plan["Output"].([]any)
		if len(ps) == 0 || len(outs) == 0 {
			return false
		}
		for _, o := range outs {
			if s, _ := o.(string); !initPlanOutput.MatchString(s) {
				return false
			}
		}
		for _, p := range ps {
			m, _ := p.(map[string]any)
			if m == nil || m["Parent Relationship"] != "InitPlan" || !blindInitPlan(cat, m) {
				return false
			}
		}
		return true
	case c.totalOrder(ctx, cat, plan, sql):
		return true
	}
	if plan["Node Type"] != "Aggregate" || plan["Strategy"] != "Plain" {
		return false
	}
	root, _ := plan["Partial Mode"].(string)
	if root != "" && root != "Simple" && root != "Finalize" {
		return false
	}
	ok := true
	var walk func(n map[string]any, top bool)
	walk = func(n map[string]any, top bool) {
		switch n["Node Type"] {
		case "Limit", "WindowAgg", "LockRows", "ModifyTable", "SetOp", "Unique", "Group", "Function Scan", "Table Function Scan", "Custom Scan", "Foreign Scan":
			ok = false
		case "Aggregate":
			if !top && (root != "Finalize" || n["Partial Mode"] != "Partial") {
				ok = false
			}
		}
		if rel, _ := n["Parent Relationship"].(string); rel == "InitPlan" || rel == "SubPlan" {
			ok = false
		}
		for _, key := range []string{"Output", "Filter", "Join Filter", "Hash Cond", "Merge Cond", "Index Cond", "Recheck Cond"} {
			switch v := n[key].(type) {
			case string:
				if systemColumnWord.MatchString(v) {
					ok = false
				}
			case []any:
				for _, o := range v {
					if s, _ := o.(string); systemColumnWord.MatchString(s) {
						ok = false
					}
				}
			}
		}
		ps, _ := n["Plans"].([]any)
		for _, p := range ps {
			if m, _ := p.(map[string]any); m != nil {
				walk(m, false)
			}
		}
	}
	walk(plan, true)
	if !ok {
		return false
	}
	outs, _ := plan["Output"].([]any)
	if len(outs) == 0 {
		return false
	}
	sd, err := c.conn.PgConn().Prepare(ctx, "", sql, nil)
	if err != nil || len(sd.Fields) != len(outs) {
		return false
	}
	var nondet bool
	if err := c.conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_collation WHERE NOT collisdeterministic)").Scan(&nondet); err != nil {
		return false
	}
	for i, o := range outs {
		s, _ := o.(string)
		if !blindAggregate(s, sd.Fields[i].DataTypeOID, nondet) {
			return false
		}
	}
	return true
}

// initPlanOutput is an InitPlan's value as EXPLAIN prints it: $0 (up to
// 16), (InitPlan 1).col1 (17 and later).
var initPlanOutput = regexp.MustCompile(`^(?:\$[0-9]+|\(InitPlan [0-9]+\)\.col[0-9]+)$`)

// planHasSystemColumn reports ctid, xmin and kin anywhere in a plan.
func planHasSystemColumn(n map[string]any) bool {
	for _, key := range []string{"Output", "Filter", "Join Filter", "Hash Cond", "Merge Cond", "Index Cond", "Recheck Cond", "Sort Key", "One-Time Filter"} {
		switch v := n[key].(type) {
		case string:
			if systemColumnWord.MatchString(v) {
				return true
			}
		case []any:
			for _, o := range v {
				if s, _ := o.(string); systemColumnWord.MatchString(s) {
					return true
				}
			}
		}
	}
	ps, _ := n["Plans"].([]any)
	for _, p := range ps {
		if m, _ := p.(map[string]any); m != nil && planHasSystemColumn(m) {
			return true
		}
	}
	return false
}

// blindInitPlan: an InitPlan whose value the data alone fixes: one row
// read by its key, count over scans with nothing order-dependent
// below (no Limit, window, sublink or other aggregate), or an EXISTS over
// the catalogs that cannot raise an error (existsOverCatalogs).
func blindInitPlan(cat *catalog, n map[string]any) bool {
	ps, _ := n["Plans"].([]any)
	if existsOverCatalogs(n) {
		return true
	}
	if rel, ok := n["Relation Name"].(string); ok && len(ps) == 0 {
		schema, _ := n["Schema"].(string)
		col, keyed := cat.keys[schema+"."+rel]
		if !keyed {
			return false
		}
		sn := scanNode{}
		sn.alias, _ = n["Alias"].(string)
		for _, k := range []string{"Index Cond", "Filter"} {
			if s, ok := n[k].(string); ok {
				sn.conds = append(sn.conds, s)
			}
		}
		return keyOf(sn, col) != "" && strings.HasPrefix(n["Node Type"].(string), "Index")
	}
	if n["Node Type"] != "Aggregate" || n["Strategy"] != "Plain" || n["Partial Mode"] != nil && n["Partial Mode"] != "Simple" {
		return false
	}
	outs, _ := n["Output"].([]any)
	if len(outs) == 0 {
		return false
	}
	for _, o := range outs {
		s, _ := o.(string)
		if m := aggregateCall.FindStringSubmatch(s); m == nil || m[1] != "count" || !oneCall(s) {
			return false
		}
	}
	ok := true
	var walk func(m map[string]any)
	walk = func(m map[string]any) {
		switch m["Node Type"] {
		case "Limit", "WindowAgg", "LockRows", "ModifyTable", "SetOp", "Unique", "Group", "Aggregate", "Function Scan", "Table Function Scan", "Custom Scan", "Foreign Scan":
			ok = false
		}
		if rel, _ := m["Parent Relationship"].(string); rel == "InitPlan" || rel == "SubPlan" {
			ok = false
		}
		cs, _ := m["Plans"].([]any)
		for _, c := range cs {
			if x, _ := c.(map[string]any); x != nil {
				walk(x)
			}
		}
	}
	for _, p := range ps {
		if x, _ := p.(map[string]any); x != nil {
			walk(x)
		}
	}
	return ok
}

// totalOrder reports a plan that returns one relation's rows in the order
// of its primary key (a Sort whose first key is the key, or a scan of the
// primary key's index), perhaps under a Limit: the order, and which rows
// a Limit keeps, are the data's, whatever the heap holds (goose's SELECT
// ... FROM goose_db_version ORDER BY id DESC).
//
// A scan of the key's index proves the order only where the text asks for
// it (ORDER BY the key): the plan asked of PostgreSQL here is the
// classifier's, a generic one taken without the actor's settings, and
// the one that ran may have been a Seq Scan (cases
// rs-total-order-index-plan-set-off, rs-total-order-generic-plan-params).
func (c *Classifier) totalOrder(ctx context.Context, cat *catalog, plan map[string]any, sql string) bool {
	n := plan
	if n["Node Type"] == "Limit" {
		ps, _ := n["Plans"].([]any)
		if len(ps) != 1 {
			return false
		}
		n, _ = ps[0].(map[string]any)
		if n == nil {
			return false
		}
	}
	var sortKey string
	if n["Node Type"] == "Sort" {
		keys, _ := n["Sort Key"].([]any)
		ps, _ := n["Plans"].([]any)
		if len(keys) == 0 || len(ps) != 1 {
			return false
		}
		sortKey, _ = keys[0].(string)
		sortKey = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(sortKey, " NULLS FIRST"), " NULLS LAST"), " DESC")
		n, _ = ps[0].(map[string]any)
		if n == nil {
			return false
		}
	}
	typ, _ := n["Node Type"].(string)
	rel, ok := n["Relation Name"].(string)
	if !ok || n["Plans"] != nil && typ != "Bitmap Heap Scan" {
		return false
	}
	if p, _ := n["Parent Relationship"].(string); p == "InitPlan" || p == "SubPlan" {
		return false
	}
	schema, _ := n["Schema"].(string)
	col, keyed := cat.keys[schema+"."+rel]
	if !keyed {
		return false
	}
	alias, _ := n["Alias"].(string)
	if sortKey != "" {
		return sortKey == col || sortKey == quoteIdent(alias)+"."+col
	}
	if typ != "Index Scan" && typ != "Index Only Scan" || !orderedByKey(sql, cat.keyNames[schema+"."+rel]) || sql == "" {
		return false
	}
	// The text's ORDER BY may name an output column or another relation's
	// column of the key's name (cases uu-total-order-alias-shadows-key,
	// uu-total-order-other-relation-key-name): PostgreSQL is asked for the
	// plan without index scans, which must sort by this relation's key.
	unindexed, err := c.explainWithoutIndexes(ctx, sql)
	if err != nil || !c.totalOrder(ctx, cat, unindexed, "") {
		return false
	}
	idx, _ := n["Index Name"].(string)
	var primary bool
	if err := c.conn.QueryRow(ctx, `SELECT i.indisprimary FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		JOIN pg_namespace s ON s.oid = c.relnamespace WHERE c.relname = $1 AND s.nspname = $2`, idx, schema).Scan(&primary); err != nil {
		return false
	}
	return primary
}

// constantText is a string constant as EXPLAIN prints it ('x'::text,
// E'\n'::text).
var constantText = regexp.MustCompile(`(?s)^E?'(?:[^'\\]|''|\\.)*'(?:::(?:text|bytea))?$`)

var aggregateCall = regexp.MustCompile(`(?s)^([a-z_]+)\((.*)\)$`)

// blindAggregate judges one output of the root Aggregate as EXPLAIN
// VERBOSE prints it, with its result type.
func blindAggregate(out string, typ uint32, nondet bool) bool {
	m := aggregateCall.FindStringSubmatch(out)
	if m == nil || !oneCall(out) {
		return false
	}
	name, args := m[1], strings.TrimPrefix(m[2], "DISTINCT ")
	distinct := args != m[2]
	equalIsSame := identityEqual[typ] || textTypes[typ] && !nondet
	switch name {
	case "count":
		return true
	case "sum", "avg":
		// DISTINCT keeps the first of two equal values, 1.0 or 1.00,
		// whose scale the sum shows (case rn-inv-sum-distinct-numeric).
		return (typ == 20 || typ == 1700) && !distinct
	case "min", "max", "bool_and", "bool_or", "every":
		return equalIsSame
	case "string_agg", "array_agg":
		parts := topLevel(args)
		if len(parts) < 2 {
			return false
		}
		order := parts[len(parts)-1]
		if !strings.HasPrefix(order, "ORDER BY ") || strings.TrimPrefix(order, "ORDER BY ") != parts[0] {
			return false
		}
		if name == "string_agg" {
			// The separator must be a constant: rows tied on the order
			// keep their scan order, each with its own separator (case
			// rn-inv-string-agg-row-separator).
			if len(parts) != 3 || !constantText.MatchString(parts[1]) {
				return false
			}
			return typ == 25 && !nondet || typ == 17 // bytea: equal is same
		}
		elem, isArray := identityEqualArrays[typ]
		return isArray && (identityEqual[elem] || textTypes[elem] && !nondet)
	}
	return false
}

// oneCall reports that the parenthesis opened after the function's name
// closes at the end of s (not "f(x) + g(y)").
func oneCall(s string) bool {
	open := strings.IndexByte(s, '(')
	if open < 0 {
		return false
	}
	depth := 0
	end := -1
	scanTop(s[open:], func(i int, ch byte) bool {
		switch ch {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				end = open + i
				return false
			}
		}
		return true
	})
	return end == len(s)-1
}

// topLevel splits an aggregate's argument list at its top-level commas and
// before a top-level " ORDER BY ".
func topLevel(args string) []string {
	var parts []string
	depth, start := 0, 0
	scanTop(args, func(i int, ch byte) bool {
		switch {
		case ch == '(':
			depth++
		case ch == ')':
			depth--
		case depth == 0 && ch == ',':
			parts = append(parts, strings.TrimSpace(args[start:i]))
			start = i + 1
		case depth == 0 && ch == ' ' && strings.HasPrefix(args[i:], " ORDER BY "):
			parts = append(parts, strings.TrimSpace(args[start:i]))
			start = i + 1
		}
		return true
	})
	return append(parts, strings.TrimSpace(args[start:]))
}

// scanTop calls f with each byte of s outside quoted strings and quoted
// identifiers (with the backslash escapes of E-strings), until f returns
// false.
func scanTop(s string, f func(i int, ch byte) bool) {
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch == '\'' || ch == '"' {
			escapes := ch == '\'' && i > 0 && (s[i-1] == 'E' || s[i-1] == 'e')
			for i++; i < len(s); i++ {
				if escapes && s[i] == '\\' {
					i++
					continue
				}
				if s[i] == ch {
					if i+1 < len(s) && s[i+1] == ch {
						i++
						continue
					}
					break
				}
			}
			continue
		}
		if !f(i, ch) {
			return
		}
	}
}

// existsOverCatalogs reports an EXISTS InitPlan (EXPLAIN prints no output
// for it) that joins and scans system catalogs only, under conditions and
// outputs that cannot raise an error (cannotRaise). Its value is whether
// some row qualifies, whatever order the scans return rows in: it stops
// at the first, and no row before it can make the statement fail, as a
// cast or a division could (case rn-actor-blind-error-order). Migration
// tools ask it of pg_tables: goose's SELECT EXISTS (SELECT 1 FROM
// pg_tables WHERE ...). A user's table is left out: its columns' types
// and operators are the user's, whose comparisons may raise.
func existsOverCatalogs(n map[string]any) bool {
	if outs, _ := n["Output"].([]any); len(outs) > 0 {
		return false
	}
	ok := true
	var walk func(m map[string]any, top bool)
	walk = func(m map[string]any, top bool) {
		switch m["Node Type"] {
		case "Nested Loop", "Hash Join", "Merge Join", "Hash", "Materialize", "Memoize", "Sort",
			"Seq Scan", "Index Scan", "Index Only Scan", "Bitmap Heap Scan", "Bitmap Index Scan", "BitmapAnd", "BitmapOr":
		default:
			ok = false
		}
		if rel, _ := m["Parent Relationship"].(string); !top && (rel == "InitPlan" || rel == "SubPlan") {
			ok = false
		}
		if _, named := m["Relation Name"]; named && m["Schema"] != "pg_catalog" {
			ok = false
		}
		for _, key := range []string{"Output", "Filter", "Join Filter", "Hash Cond", "Merge Cond", "Index Cond", "Recheck Cond", "One-Time Filter", "Sort Key", "Cache Key"} {
			switch v := m[key].(type) {
			case string:
				ok = ok && cannotRaise(v)
			case []any:
				for _, o := range v {
					s, _ := o.(string)
					ok = ok && cannotRaise(s)
				}
			case nil:
			default:
				ok = false
			}
		}
		cs, _ := m["Plans"].([]any)
		for _, c := range cs {
			if x, _ := c.(map[string]any); x != nil {
				walk(x, false)
			} else {
				ok = false
			}
		}
	}
	walk(n, true)
	return ok
}

// safeCalls are the functions a condition of existsOverCatalogs may
// call: they take no argument, read no row and never raise.
var safeCalls = map[string]bool{"current_schema": true, "current_user": true, "session_user": true, "current_database": true}

// typeWords are the words of multi-word type names (character varying,
// timestamp without time zone).
var typeWords = map[string]bool{"varying": true, "precision": true, "without": true, "with": true, "time": true, "zone": true}

// cannotRaise reports an expression, as EXPLAIN prints it, made only of
// column references, constants (folded when the plan was made, casts
// included), comparisons (= <> < > <= >=, = ANY of an array constant),
// AND, OR, NOT, IS [NOT] NULL and calls of safeCalls: on the built-in
// types of the catalogs none of it can raise an error for any row.
func cannotRaise(expr string) bool { return cannotRaiseWith(expr, false) }

// cannotRaiseWith is cannotRaise that also accepts parameters ($n) where
// params says every InitPlan and SubPlan of the plan cannot raise
// (paramsCannotRaise): PostgreSQL 15 prints an InitPlan's output as $n,
// like a Bind parameter, and runs the InitPlan when a condition holding
// it is first evaluated, on whichever row the plan meets first (case
// ww-keyed-read-initplan-param-other-row).
func cannotRaiseWith(expr string, params bool) bool {
	stmts, ok := lex(expr)
	if !ok || len(stmts) > 1 {
		return false
	}
	if len(stmts) == 0 {
		return true
	}
	ts := stmts[0]
	for i := 0; i < len(ts); i++ {
		t := ts[i]
		switch t.kind {
		case tokParam:
			// A Bind parameter's value, converted before any row is
			// read, or a subplan's that cannot raise: a value like a
			// constant.
			if !params {
				return false
			}
		case tokString, tokNumber:
			// A constant, perhaps with its type: 'r'::"char",
			// '{r,p}'::"char"[].
			if i+2 < len(ts) && ts[i+1].text == ":" && ts[i+2].text == ":" {
				i += 3
				if i >= len(ts) || ts[i].kind != tokWord && ts[i].kind != tokQuoted {
					return false
				}
				for i+1 < len(ts) && ts[i+1].kind == tokWord && typeWords[ts[i+1].text] {
					i++
				}
				if i+2 < len(ts) && ts[i+1].text == "[" && ts[i+2].text == "]" {
					i += 2
				}
			}
		case tokWord, tokQuoted:
			name := t.text
			if t.kind == tokQuoted {
				name = strings.Trim(name, `"`)
			}
			if i+1 < len(ts) && ts[i+1].text == "(" && !(t.kind == tokWord && conditionWords[name]) {
				if t.kind == tokWord && identityLookup[name] && (i == 0 || ts[i-1].text != ".") {
					// name(alias.oid [, 'PRIVILEGES'::text]): of an
					// object that exists it says yes or no, of one that
					// does not, NULL. A name, or a privilege that is not
					// a constant of known words, may raise (case
					// uu-keyed-read-privilege-name-other-row).
					if n := identityCall(ts[i:]); n > 0 {
						i += n - 1
						continue
					}
					return false
				}
				if !safeCalls[name] || i+2 >= len(ts) || ts[i+2].text != ")" {
					return false
				}
				i += 2
				continue
			}
			// A column, qualified as EXPLAIN VERBOSE prints it, or a
			// keyword of conditionWords.
			qualified := i+1 < len(ts) && ts[i+1].text == "." || i > 0 && ts[i-1].text == "."
			if !qualified && (t.kind != tokWord || !conditionWords[name]) {
				return false
			}
		case tokPunct:
			switch t.text {
			case "(", ")", ",", ".", "=", "<>", "<", ">", "<=", ">=":
			default:
				return false
			}
		default:
			return false
		}
	}
	return true
}

// identityCall matches ts at name(alias.oid) or name(alias.oid,
// 'PRIVILEGE[, ...]'::text) with privilege words PostgreSQL knows, and
// returns how many tokens it spans, or 0.
func identityCall(ts []token) int {
	if len(ts) < 6 || ts[1].text != "(" || ts[2].kind != tokWord && ts[2].kind != tokQuoted || ts[3].text != "." || ts[4].kind != tokWord || !oidColumn[ts[4].text] {
		return 0
	}
	if ts[5].text == ")" {
		return 6
	}
	if ts[5].text != "," || len(ts) < 11 || ts[6].kind != tokString || ts[7].text != ":" || ts[8].text != ":" || ts[9].text != "text" || ts[10].text != ")" {
		return 0
	}
	if !privilegeList.MatchString(ts[6].text) {
		return 0
	}
	return 11
}

// oidColumn: the catalogs' columns that hold an object's or a role's oid
// (an oid of no object gives NULL or false, not an error).
var oidColumn = map[string]bool{"oid": true, "relowner": true, "nspowner": true, "typowner": true, "proowner": true, "datdba": true}

// privilegeList: a privilege string constant as EXPLAIN prints it, made of
// the privilege words has_*_privilege and pg_has_role accept.
var privilegeList = regexp.MustCompile(`(?i)^'(?:(?:SELECT|INSERT|UPDATE|DELETE|TRUNCATE|REFERENCES|TRIGGER|USAGE|CREATE|CONNECT|TEMPORARY|TEMP|EXECUTE|MEMBER|SET)(?: WITH GRANT OPTION| WITH ADMIN OPTION)?(?:, ?)?)+'$`)

// identityLookup is identityLookups as a set.
var identityLookup = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range identityLookups {
		m[n] = true
	}
	return m
}()

// conditionsCannotRaise reports a plan every condition of which
// cannotRaise. Which rows a condition is evaluated on depends on the plan
// that runs, and the plan on the table's size (even after a rolled-back
// insert) and the session's settings: a condition that may raise an
// error for some row makes an order-blind statement's outcome depend on
// more than its rows (case rs-plan-by-rolled-back-size-error).
//
// Nor may an expression a node below the top computes for its rows: a
// join evaluates its inner side's outputs on the rows its plan meets,
// not only on those that reach the aggregate (case
// ww-blind-count-placeholder-error-plan-by-size). An aggregate's own
// outputs are computed on its input rows, which do not depend on the
// plan once nothing below may raise.
func conditionsCannotRaise(n map[string]any) bool {
	params := paramsCannotRaise(n)
	var walk func(n map[string]any, top bool) bool
	walk = func(n map[string]any, top bool) bool {
		if typ, _ := n["Node Type"].(string); !printedNodes[typ] {
			return false
		}
		for _, key := range conditionKeys {
			if c, _ := n[key].(string); c != "" && !cannotRaiseWith(c, params) {
				return false
			}
		}
		if !top && n["Node Type"] != "Aggregate" && !outputsCannotRaise(n, params) {
			return false
		}
		ok := true
		eachChild(n, func(m map[string]any) { ok = ok && walk(m, false) })
		return ok
	}
	return walk(n, true)
}

// printedNodes are the plan nodes that compute nothing EXPLAIN does not
// print: a Values Scan evaluates its lists, a Function Scan its calls,
// where the plan shows only their columns (cases
// yy-blind-count-values-scan-*).
var printedNodes = map[string]bool{
	"Seq Scan": true, "Index Scan": true, "Index Only Scan": true, "Bitmap Heap Scan": true, "Bitmap Index Scan": true,
	"BitmapAnd": true, "BitmapOr": true, "Tid Scan": true, "Tid Range Scan": true, "Subquery Scan": true, "CTE Scan": true,
	"Nested Loop": true, "Hash Join": true, "Merge Join": true, "Hash": true, "Sort": true, "Incremental Sort": true,
	"Materialize": true, "Memoize": true, "Append": true, "Merge Append": true, "Result": true, "Aggregate": true,
	"Limit": true, "Unique": true, "Group": true, "Gather": true, "Gather Merge": true,
}

// outputsCannotRaise reports a node whose outputs and sort keys are
// columns or expressions that cannotRaise.
func outputsCannotRaise(n map[string]any, params bool) bool {
	for _, key := range []string{"Output", "Sort Key"} {
		list, _ := n[key].([]any)
		for _, o := range list {
			s, _ := o.(string)
			if key == "Sort Key" {
				s = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(s, " NULLS FIRST"), " NULLS LAST"), " DESC")
			}
			if s != "" && !bareColumn.MatchString(s) && !cannotRaiseWith(s, params) {
				return false
			}
		}
	}
	return true
}

// paramsCannotRaise reports a plan each of whose InitPlans and SubPlans
// computes nothing that may raise and reads no relation (a scalar
// subquery over rows raises when it returns two: case
// yy-keyed-read-initplan-cardinality-other-row): its $n are then values
// like constants (SELECT current_schema()).
func paramsCannotRaise(plan map[string]any) bool {
	ok := true
	var sub func(n map[string]any)
	sub = func(n map[string]any) {
		if typ, _ := n["Node Type"].(string); typ != "Result" && typ != "Aggregate" && typ != "Limit" {
			ok = false
		}
		for _, key := range conditionKeys {
			if c, _ := n[key].(string); c != "" && !cannotRaise(c) {
				ok = false
			}
		}
		if !outputsCannotRaise(n, false) {
			ok = false
		}
		eachChild(n, sub)
	}
	var walk func(n map[string]any)
	walk = func(n map[string]any) {
		if rel, _ := n["Parent Relationship"].(string); rel == "InitPlan" || rel == "SubPlan" {
			sub(n)
			return
		}
		eachChild(n, walk)
	}
	walk(plan)
	return ok
}

// conditionKeys are the plan fields that hold a condition.
var conditionKeys = []string{"Filter", "Join Filter", "Index Cond", "Recheck Cond", "Hash Cond", "Merge Cond", "One-Time Filter", "TID Cond"}

// hasCondition reports a plan with any condition at all.
func hasCondition(n map[string]any) bool {
	for _, key := range conditionKeys {
		if c, _ := n[key].(string); c != "" {
			return true
		}
	}
	found := false
	eachChild(n, func(m map[string]any) { found = found || hasCondition(m) })
	return found
}

// unsafeCompareSQL finds a column of a user relation whose type's
// comparisons may raise for some values only: an array or composite
// compares element by element and looks the element type's equality up
// as it goes (point has none: case uu-keyed-read-point-array-eq-other-
// row). Safe are the numeric, string, boolean, date and time, enum,
// range, network and bit-string categories and a few types by name, and
// arrays of them.
const unsafeCompareSQL = `SELECT EXISTS (
	SELECT 1 FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
	  JOIN pg_namespace n ON n.oid = c.relnamespace
	  JOIN pg_type t ON t.oid = a.atttypid
	  LEFT JOIN pg_type e ON e.oid = t.typelem AND t.typcategory = 'A'
	WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') AND c.relkind IN ('r', 'p', 'm', 'f')
	  AND a.attnum > 0 AND NOT a.attisdropped
	  AND NOT (COALESCE(e.typcategory, t.typcategory) IN ('N', 'S', 'B', 'D', 'T', 'E', 'R', 'I', 'V')
	    OR COALESCE(e.typname, t.typname) IN ('uuid', 'bytea', 'jsonb', 'macaddr', 'macaddr8', 'tsvector', 'money')))`

// conditionWords are the keywords cannotRaise accepts.
var conditionWords = map[string]bool{"and": true, "or": true, "not": true, "is": true, "null": true, "true": true, "false": true, "any": true, "all": true}

// orderedByKey reports SQL text whose outermost ORDER BY's first item is
// the key column (attname, perhaps qualified) alone: PostgreSQL returns
// the rows in that order whatever plan runs.
func orderedByKey(sql, attname string) bool {
	stmts, ok := lex(sql)
	if !ok || len(stmts) != 1 || attname == "" {
		return false
	}
	ts := stmts[0]
	at := -1
	for i := 0; i+1 < len(ts); i++ {
		if ts[i].depth == 0 && ts[i+1].depth == 0 && ts[i].kind == tokWord && ts[i].text == "order" && ts[i+1].kind == tokWord && ts[i+1].text == "by" {
			at = i + 2
		}
	}
	if at < 0 {
		return false
	}
	names := func(t token) bool {
		return t.kind == tokQuoted && t.text == attname || t.kind == tokWord && t.text == attname
	}
	i := at
	if i+2 < len(ts) && ts[i+1].kind == tokPunct && ts[i+1].text == "." {
		i += 2 // alias.key
	}
	if i >= len(ts) || !names(ts[i]) {
		return false
	}
	if i+1 == len(ts) {
		return true
	}
	next := ts[i+1]
	switch {
	case next.kind == tokPunct && (next.text == "," || next.text == ";"):
		return true
	case next.kind == tokWord:
		switch next.text {
		case "asc", "desc", "nulls", "limit", "offset", "fetch", "for":
			return true
		}
	}
	return false
}

// explainWithoutIndexes is explain with index scans switched off.
func (c *Classifier) explainWithoutIndexes(ctx context.Context, sql string) (map[string]any, error) {
	for _, p := range []string{"enable_indexscan", "enable_indexonlyscan", "enable_bitmapscan"} {
		if _, err := c.conn.Exec(ctx, "SET "+p+" = off"); err != nil {
			return nil, err
		}
		defer c.conn.Exec(context.WithoutCancel(ctx), "RESET "+p)
	}
	return c.explain(ctx, sql)
}

package footprint

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// dml asks PostgreSQL which relations a DML statement reads and writes: it
// prepares the statement and explains its generic plan, which shows every
// relation the executor touches after views, rules and CTEs are expanded.
// Nothing runs. Functions in the plan must be built-in and not volatile,
// except nextval of a sequence (a write of that sequence).
func (c *Classifier) dml(ctx context.Context, ts []token, sql string) (st Statement) {
	// What the plan shows of a counter stays shown whatever the statement
	// is taken for after it, a global one included (case
	// rs-xid-order-locks-view-global).
	var counter string
	defer func() {
		if st.Counter == "" {
			st.Counter = counter
		}
	}()
	cat, err := c.loadCatalog(ctx)
	if err != nil {
		return codeFree("the catalogs could not be read: " + err.Error())
	}
	if cat.userOperators {
		return global("the database defines operators; their functions are not analysed")
	}
	if cat.userCode != "" {
		return global(cat.userCode)
	}
	for _, t := range ts {
		if (t.kind == tokWord || t.kind == tokQuoted) && t.text == "ctid" {
			// Where the order of writes put a row (case
			// keys-physical-order). Plans print ctid where PostgreSQL
			// finds the rows an UPDATE or DELETE changes, so the text
			// is asked, not the plan: no user column may be called so.
			return codeFree("reads ctid, which shows the order rows were written in")
		}
	}
	plan, err := c.explain(ctx, sql)
	if err != nil {
		return global("PostgreSQL could not plan it: " + err.Error())
	}
	s := Statement{Kind: DML, Reads: nil}
	reads, writes, locks := Set{}, Set{}, Set{}
	var exprs []string
	if err := walkPlan(plan, reads, writes, locks, false, &exprs); err != nil {
		return global(err.Error())
	}
	s.Counter = showsCounter(plan, reads, exprs)
	for r := range writes {
		if strings.HasPrefix(r, "pg_catalog.") {
			// DML on a system catalog changes the schema where no DDL
			// word says so (case tt-catalog-dml-rename): the attempt is
			// not judged.
			s.Counter = "writes the system catalog " + r
		}
	}
	counter = s.Counter
	// A sequence scanned as a relation (SELECT last_value FROM s) is the
	// same object nextval writes: one name for both.
	for _, set := range []Set{reads, locks} {
		for r := range set {
			if len(c.created) > 0 && (strings.HasPrefix(r, "pg_catalog.") || strings.HasPrefix(r, "information_schema.")) {
				reads.Add(Catalogs)
			}
			if cat.seqs[r] {
				delete(set, r)
				set.Add("sequence " + r)
			}
		}
	}
	// Calls the plan does not print: an IMMUTABLE function with constant
	// arguments is folded while planning (case code-immutable-lies), and
	// a VALUES list, a LIMIT or a window frame is never printed (cases
	// code-values-*, code-limit-function, code-window-frame-function).
	// Every call in the text must be a safe built-in or printed.
	for _, t := range ts {
		if t.kind == tokQuoted && (strings.HasPrefix(t.text, unicodeIdent) || strings.Contains(t.text, ".")) {
			// Not decoded (U&"..."), or a name with a dot, which the
			// name rules below would split: any name rule may miss it
			// (cases recheck-ctid-uescape, recheck-immutable-lies-view-uescape,
			// recheck-immutable-lies-dotted-name).
			return global("names something as U&\"...\" or with a dot inside quotes")
		}
	}
	printed := map[string]bool{}
	for _, e := range exprs {
		for _, m := range funcCall.FindAllStringSubmatch(stripCasts(e), -1) {
			printed[unqualified(strings.ToLower(m[1]))] = true
		}
	}
	for i := 0; i+1 < len(ts); i++ {
		t, next := ts[i], ts[i+1]
		if next.kind != tokPunct || next.text != "(" || (t.kind != tokWord && t.kind != tokQuoted) {
			continue
		}
		// Keywords are looked up too: a function may be called filter
		// or over (case recheck-immutable-lies-keyword-name); a word that
		// names no function is a column list, an alias's, a type's.
		name := t.text
		if i >= 2 && ts[i-1].kind == tokPunct && ts[i-1].text == "." && (ts[i-2].kind == tokWord || ts[i-2].kind == tokQuoted) {
			name = ts[i-2].text + "." + name
		}
		lower := strings.ToLower(name)
		if printed[unqualified(lower)] {
			continue
		}
		if unqualified(lower) == "nextval" || advisoryFunction(lower) {
			return global("calls " + name + " where the plan does not show it")
		}
		ok, builtin, err := c.safeFunction(ctx, name)
		if err == nil && !c.functionExists(name) {
			continue // a table's column list, an alias's, a type's modifier
		}
		if err != nil || !ok || !builtin {
			return global("calls " + name + " where the plan does not show it")
		}
		if len(c.created) > 0 && !catalogFreeFunction(name) {
			// It may look a name up (to_regclass in a VALUES list or an
			// ON CONFLICT's SET: cases tt-values-unprinted-catalog-call,
			// tt-on-conflict-unprinted-catalog-call).
			reads.Add(Catalogs)
		}
	}
	// A view that calls a user or volatile function (case
	// code-immutable-lies-view, code-view-limit-function): its calls may
	// be folded or not printed.
	for _, t := range ts {
		if (t.kind == tokWord || t.kind == tokQuoted) && cat.callingViews[t.text] {
			return global("reads view " + t.text + ", which calls a user or volatile function")
		}
	}
	clock := plan[timeParamsKey] == true
	for _, t := range ts {
		if t.kind == tokWord && timeWords[t.text] {
			clock = true
		}
	}
	for _, e := range exprs {
		// A date or time constant may have been 'now', spelled any way
		// a string can be ($$now$$, E'now', ' now': case recheck-now-dollar).
		if timeCall.MatchString(e) || timeConstant.MatchString(e) || populateCall.MatchString(e) || castReadsClock(e) {
			clock = true
		}
	}
	for _, e := range exprs {
		if len(c.created) > 0 && strings.Contains(e, "::reg") {
			// A cast to regclass (regtype, regproc ...) looks a name
			// up, maybe a bound parameter's (case
			// create-regclass-param).
			reads.Add(Catalogs)
		}
		if systemColumn.MatchString(e) {
			// xmax shows another transaction's row lock or uncommitted
			// update, xmin and cmin the order transactions began (case
			// names-xmax-row-lock), from the counter every writing
			// transaction draws from (rp-xid-order-two-keyed-updates).
			st := codeFree("reads a system column (xmin, xmax, cmin, cmax) that shows other transactions")
			st.Counter = "transaction ids (a system column)"
			return st
		}
		orig := e
		e = stripCasts(e)
		calls := 0
		for _, m := range funcCall.FindAllStringSubmatch(e, -1) {
			name := strings.ToLower(m[1])
			if name == "nextval" || name == "pg_catalog.nextval" {
				if cat.userNextval {
					return global("calls nextval, and the database defines a function of that name")
				}
				calls++ // read from the expression as printed, below
				continue
			}
			if syntaxFunctions[name] {
				continue
			}
			ok, builtin, err := c.safeFunction(ctx, name)
			if err == nil && builtin && advisoryFunction(name) {
				// Advisory locks are state of their own, which only
				// the other advisory lock functions touch.
				reads.Add(AdvisoryLocks)
				writes.Add(AdvisoryLocks)
				continue
			}
			if err == nil && ok && len(c.created) > 0 && !catalogFreeFunction(name) {
				reads.Add(Catalogs) // it may look a name up
			}
			if err != nil || !ok {
				st := global("calls " + name + ", which may write or is not built in")
				// A built-in volatile function other than set_config
				// (nextval's kin) leaves the session as it was; any other
				// may change it.
				st.Opaque = err != nil || !builtin || strings.HasSuffix(name, "set_config")
				return st
			}
		}
		if calls > 0 {
			// Each call's own argument, one sequence literal as the
			// plan prints it ('name'::regclass, quotes kept): two calls
			// in one expression name two sequences, and an argument
			// computed at run time names none (cases
			// names-nextval-two-in-one-expr, names-nextval-concat,
			// names-nextval-quoted-name).
			lits := nextvalArg.FindAllStringSubmatch(orig, -1)
			if len(lits) != calls {
				return codeFree("nextval of a sequence the plan does not name")
			}
			for _, l := range lits {
				seq := strings.ReplaceAll(l[1], "''", "'")
				q, err := c.resolveSequence(ctx, seq)
				if err != nil {
					return global("nextval of " + seq + ", which does not resolve")
				}
				writes.Add("sequence " + q)
			}
		}
	}
	if lockingClause(ts) {
		for r := range reads {
			locks.Add(r)
		}
	}
	// What PostgreSQL touches beyond what the plan names.
	cat.expand(reads)
	cat.expand(writes)
	cat.expand(locks)
	named := writes.Sorted()
	keys := rowKeys(cat, plan, ts)
	scanned := maps.Clone(keys)
	if len(named) > 0 {
		touched := Set{}
		touched.Add(reads.Sorted()...)
		touched.Add(named...)
		touched.Add(locks.Sorted()...)
		for _, w := range named {
			if !strings.HasPrefix(w, "sequence ") {
				keys = insertParentKeys(cat, ts, w, touched, keys)
			}
		}
	}
	for _, w := range named {
		for _, p := range cat.parents[w] {
			locks.Add(p) // a child row locks its parent FOR KEY SHARE
			if _, ok := scanned[p]; ok {
				// The row the check locks is the child's value, not
				// the row the statement names by key (a foreign key to
				// its own table, say): the parent stays whole.
				delete(keys, p)
			}
		}
		if _, byKey := keys[w]; byKey && !hasSeq(ts, "default") {
			// An UPDATE or DELETE of one row by key draws from no
			// sequence (DEFAULT in a SET list would).
			continue
		}
		writes.Add(cat.sequences[w]...)
	}
	// A parent row's writes check or cascade to its children, and theirs
	// to their children. Not an UPDATE of one row by key that leaves the
	// key alone (rowKeys): a foreign key references a keyed table's
	// primary key (it has no other unique index), and PostgreSQL neither
	// checks nor cascades when the referenced columns do not change.
	for stack := named; len(stack) > 0; {
		w := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if _, byKey := keys[w]; byKey && len(ts) > 0 && ts[0].kind == tokWord && ts[0].text == "update" {
			continue
		}
		for _, ch := range cat.children[w] {
			// Children are written whole, even where the statement
			// names a row of the same table by key (a foreign key to its
			// own table).
			delete(keys, ch)
			if cat.setDefault[[2]string{ch, w}] {
				// SET DEFAULT runs the child's defaults: their
				// sequences (case names-fk-set-default-sequence).
				writes.Add(cat.sequences[ch]...)
				// SET DEFAULT: the child's default value locks that row
				// of the parent, which the statement does not name.
				locks.Add(w)
				delete(keys, w)
			}
			if !writes[ch] {
				writes.Add(ch)
				stack = append(stack, ch)
			}
		}
	}
	cat.expand(writes)
	cat.expand(locks)
	for _, set := range []Set{reads, writes, locks} {
		for r := range set {
			if why, bad := cat.complex[r]; bad {
				return global(r + " " + why)
			}
		}
	}
	if clock {
		// Each reading of the clock is a draw from one sequence: the
		// order of two of them shows in what they wrote (cases
		// code-now-order, code-now-begin-order). engine/trace.go draws
		// at the transaction's start too, where now() is fixed.
		writes.Add(ClockSequence)
		s.Clock = true
	}
	s.Reads, s.Writes, s.Locks = reads.Sorted(), writes.Sorted(), locks.Sorted()
	s.Keys = keys
	s.LocksExact = locksExact(plan, ts)
	s.KeyOnly = keyOnly(cat, plan)
	s.Appends = onlyInserts(plan)
	if len(ts) > 0 && ts[0].kind == tokWord && ts[0].text == "select" && len(s.Writes) == 0 && len(s.Locks) == 0 && len(s.Reads) > len(s.Keys) {
		s.OrderBlind = c.orderBlindPlan(ctx, sql, plan)
	}
	for w := range writes {
		s.Deferred = s.Deferred || cat.deferrable[w]
	}
	if blindForTest() {
		s.Reads, s.Writes, s.Locks = nil, nil, nil
	}
	return s
}

// blindForTest is a test-only switch (INTERLEAVE_TEST_BLIND_CLASSIFIER=1)
// that classifies every DML statement as touching nothing, so that tests
// can show the lock cross-check and the reduction check catching a
// classification that misses relations.
func blindForTest() bool { return os.Getenv("INTERLEAVE_TEST_BLIND_CLASSIFIER") == "1" }

// funcCall finds function calls in deparsed expressions: a name followed
// directly by a parenthesis.
// unqualified is a function name without its schema.
func unqualified(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// timeWords: the SQL keywords and functions that read the clock; the
// transaction's start time (now) is read when the transaction begins.
var timeWords = map[string]bool{"now": true, "current_timestamp": true, "current_time": true, "current_date": true,
	"localtime": true, "localtimestamp": true, "transaction_timestamp": true, "statement_timestamp": true}

// timeParamsKey marks, in a plan explain returns, a statement with a
// parameter of a date or time type.
const timeParamsKey = "Interleave Time Parameters"

var (
	// Any cast to a date or time type: from text at run time it reads
	// 'now' as the clock (cases ver-now-text-cast, ver-now-column-cast).
	timeConstant = regexp.MustCompile(`::(?:timestamp|date|time)`)
	timeCall     = regexp.MustCompile(`(?i)(?:^|[^A-Za-z0-9_$.])(?:pg_catalog\.)?(?:now|transaction_timestamp|statement_timestamp)\(|CURRENT_(?:TIMESTAMP|TIME|DATE)|LOCALTIME`)
)

// populateCall: json(b)_populate_record(set) and json(b)_to_record(set)
// read their values' text as the target's types, 'now' included (case
// rn-now-json-populate).
var populateCall = regexp.MustCompile(`(?i)_(?:populate_record|populate_recordset|to_record|to_recordset)\(`)

// castType is a cast as EXPLAIN prints it: ::name, ::schema.name, the
// multi-word built-in names.
var castType = regexp.MustCompile(`::("[^"]+"|[A-Za-z_][A-Za-z0-9_]*)(?:\.("[^"]+"|[A-Za-z_][A-Za-z0-9_]*))?( with(?:out)? time zone| varying| precision)?`)

// castSafe are the built-in types whose input never reads the clock.
var castSafe = map[string]bool{
	"integer": true, "bigint": true, "smallint": true, "numeric": true, "real": true, "double precision": true,
	"text": true, "character varying": true, "character": true, "bpchar": true, "name": true, `"char"`: true, "char": true,
	"boolean": true, "bytea": true, "json": true, "jsonb": true, "jsonpath": true, "uuid": true, "oid": true, "xid": true,
	"regclass": true, "regproc": true, "regprocedure": true, "regtype": true, "regnamespace": true, "regrole": true, "regoper": true, "regconfig": true,
	"interval": true, "money": true, "inet": true, "cidr": true, "macaddr": true, "bit": true, "bit varying": true,
	"unknown": true, "anyelement": true, "record": true, "int4range": true, "int8range": true, "numrange": true,
	"tsvector": true, "tsquery": true, "xml": true, "point": true,
}

// castReadsClock reports a cast to any type but the built-ins that never
// read the clock: a domain, range, composite or array over a date or time
// type reads 'now' from text at run time as the time types do (cases
// rn-now-range-text-cast, rn-now-domain-text-cast; a domain's input shows
// as 'now'::cstring). Coarser than needed: any other type counts.
func castReadsClock(e string) bool {
	for _, m := range castType.FindAllStringSubmatch(e, -1) {
		if m[2] != "" {
			return true // schema-qualified: a user's type
		}
		if !castSafe[strings.ToLower(m[1])+m[3]] {
			return true
		}
	}
	return false
}

var funcCall = regexp.MustCompile(`((?:[A-Za-z_][A-Za-z0-9_$]*\.)?[A-Za-z_][A-Za-z0-9_$]*|"[^"]+")\(`)

// syntaxFunctions are SQL constructs that deparse like calls and run no
// function of their own.
var syntaxFunctions = map[string]bool{
	"coalesce": true, "nullif": true, "greatest": true, "least": true, "row": true,
	"any": true, "all": true, "array": true, "exists": true, "in": true,
}

// stripCasts removes type casts (`::character varying(10)[]`) from a
// deparsed expression, so that a type modifier is not taken for a call.
func stripCasts(e string) string {
	var b strings.Builder
	for {
		i := strings.Index(e, "::")
		if i < 0 {
			b.WriteString(e)
			return b.String()
		}
		b.WriteString(e[:i])
		j := i + 2
		for j < len(e) {
			c := e[j]
			switch {
			case c == '"':
				k := strings.IndexByte(e[j+1:], '"')
				if k < 0 {
					j = len(e)
					continue
				}
				j += k + 2
			case c == '_' || c == '.' || c == ' ' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
				if c == ' ' && !(j+1 < len(e) && (e[j+1] >= 'a' && e[j+1] <= 'z')) {
					goto mods
				}
				j++
			default:
				goto mods
			}
		}
	mods:
		if j < len(e) && e[j] == '(' {
			if k := strings.IndexByte(e[j:], ')'); k > 0 && strings.Trim(e[j+1:j+k], "0123456789, ") == "" {
				j += k + 1
			}
		}
		for strings.HasPrefix(e[j:], "[]") {
			j += 2
		}
		e = e[j:]
	}
}

// resolveSequence names a sequence as schema.name, as PostgreSQL resolves
// the name the plan shows.
func (c *Classifier) resolveSequence(ctx context.Context, name string) (string, error) {
	var q *string
	err := c.conn.QueryRow(ctx, `SELECT format('%s.%s', n.nspname, s.relname) FROM pg_class s
		JOIN pg_namespace n ON n.oid = s.relnamespace WHERE s.oid = to_regclass($1)`, name).Scan(&q)
	if err != nil {
		return "", err
	}
	if q == nil {
		return "", fmt.Errorf("no sequence %s", name)
	}
	return *q, nil
}

var (
	// nextvalArg is nextval('name'::regclass) as a plan prints it, or
	// nextval('name') (an identity column's): one literal, quotes
	// doubled inside. A user nextval(text) prints 'name'::text.
	nextvalArg = regexp.MustCompile(`(?:^|[^A-Za-z0-9_$."])(?:pg_catalog\.)?nextval\('((?:[^']|'')*)'(?:::regclass)?\)`)
	// systemColumn: a reference to xmin, xmax, cmin or cmax (no user
	// column may have those names).
	systemColumn = regexp.MustCompile(`(?:^|[^A-Za-z0-9_$"])(?:(?:[A-Za-z0-9_$]+|"[^"]+")\.)?(?:xmin|xmax|cmin|cmax)\b`)
)

// planKeys are the plan fields that hold expressions: everything a plan
// node evaluates.
var planSkip = map[string]bool{
	"Node Type": true, "Relation Name": true, "Schema": true, "Alias": true, "Parent Relationship": true,
	"Strategy": true, "Join Type": true, "Scan Direction": true, "Index Name": true, "CTE Name": true,
	"Subplan Name": true, "Operation": true, "Partial Mode": true, "Command": true, "Conflict Resolution": true,
	"Conflict Arbiter Indexes": true, "Sort Method": true, "Async Capable": true, "Parallel Aware": true,
	"Inner Unique": true, "Single Copy": true, "Function Name": false,
}

// walkPlan collects the relations a plan reads, row-locks (below a
// LockRows node: a locking clause, also one inside a view's definition)
// and writes, and every expression it evaluates.
func walkPlan(node map[string]any, reads, writes, locks Set, locking bool, exprs *[]string) error {
	typ, _ := node["Node Type"].(string)
	if typ == "LockRows" {
		locking = true
	}
	if rel, ok := node["Relation Name"].(string); ok {
		schema, _ := node["Schema"].(string)
		name := schema + "." + rel
		if typ == "ModifyTable" {
			op, _ := node["Operation"].(string)
			if op == "" {
				return fmt.Errorf("a modifying plan node without its operation")
			}
			writes.Add(name)
		} else {
			reads.Add(name)
			if locking {
				locks.Add(name)
			}
		}
	}
	if typ == "Foreign Scan" || typ == "Custom Scan" {
		return fmt.Errorf("the plan has a %s", typ)
	}
	// Relations the plan no longer names: partitions pruned by the values
	// the plan was explained with (never expected with pruning off).
	if n, ok := node["Subplans Removed"].(float64); ok && n > 0 {
		return fmt.Errorf("the plan removed %v subplans it does not name", n)
	}
	if typ == "Append" || typ == "Merge Append" {
		if ps, _ := node["Plans"].([]any); len(ps) == 0 {
			return fmt.Errorf("the plan has an %s of nothing", typ)
		}
	}
	for k, v := range node {
		if planSkip[k] {
			continue
		}
		switch x := v.(type) {
		case string:
			*exprs = append(*exprs, x)
		case []any:
			for _, e := range x {
				switch y := e.(type) {
				case string:
					*exprs = append(*exprs, y)
				case map[string]any:
					if err := walkPlan(y, reads, writes, locks, locking, exprs); err != nil {
						return err
					}
				}
			}
		case map[string]any:
			if err := walkPlan(x, reads, writes, locks, locking, exprs); err != nil {
				return err
			}
		}
	}
	if fn, ok := node["Function Name"].(string); ok {
		*exprs = append(*exprs, fn+"(")
	}
	return nil
}

// counterCall: functions whose value is drawn from, or shows, the
// cluster's transaction id or oid counters.
var counterCall = regexp.MustCompile(`(?i)\b(?:txid_[a-z_]+|pg_current_xact_id(?:_if_assigned)?|pg_current_snapshot|pg_snapshot_[a-z_]+|pg_xact_status|pg_xact_commit_timestamp|lo_creat|lo_create|lo_import|lo_from_bytea|pg_relation_filenode|pg_relation_filepath|pg_lock_status|pg_stat_get_activity|pg_prepared_xact|pg_get_multixact_members)\(`)

// wholeRow: a whole-row reference (c.*), which shows every column of a
// catalog row, its oid included (case rq-oid-gap-whole-row-json).
var wholeRow = regexp.MustCompile(`(?:[A-Za-z0-9_$]+|"[^"]+")\.\*`)

// counterCast: a cast to a type of the counters' values, of a constant
// (group 1) or of anything else.
var counterCast = regexp.MustCompile(`('(?:[^']|'')*')?::(?:oid|xid8?|cid|tid|reg[a-z]+)\b`)

var digits = regexp.MustCompile(`[0-9]+`)

// castShowsCounter reports a cast of counterCast that may show a value an
// actor drew: a cast of anything but a constant, or a constant oid at or
// past FirstNormalObjectId (16384; the catalogs' own are below it, and a
// name cast to regclass prints as the name).
func castShowsCounter(expr string) bool {
	for _, m := range counterCast.FindAllStringSubmatch(expr, -1) {
		if m[1] == "" {
			return true
		}
		for _, n := range digits.FindAllString(m[1], -1) {
			if v, err := strconv.ParseUint(n, 10, 64); err != nil || v >= 16384 {
				return true
			}
		}
		if strings.Contains(m[0], "::xid") || strings.Contains(m[0], "::cid") {
			return true
		}
	}
	return false
}

// counterColumn: a column of the catalogs whose value is an oid or a
// transaction id an actor's write may have drawn, qualified as EXPLAIN
// VERBOSE prints it (not a cast to oid).
var counterColumn = regexp.MustCompile(`(?:^|[^A-Za-z0-9_$:])(?:[A-Za-z0-9_$]+|"[^"]+")\.(?:oid|tableoid|relfilenode|reltoastrelid|reltype|chunk_id|typrelid|conrelid|indexrelid|attrelid|objoid|classoid|loid|relfrozenxid|datfrozenxid)\b`)

// identityLookups are built-in functions that take an object's oid and
// return a property of the object (a privilege, a visibility), never the
// number: like an equality, they use the oid as the object's name. A
// user function of one of these names makes CounterCode true, so a name
// printed here is PostgreSQL's own.
var identityLookups = []string{
	"has_any_column_privilege", "has_column_privilege", "has_database_privilege",
	"has_foreign_data_wrapper_privilege", "has_function_privilege", "has_language_privilege",
	"has_schema_privilege", "has_sequence_privilege", "has_server_privilege",
	"has_table_privilege", "has_tablespace_privilege", "has_type_privilege",
	"pg_has_role", "pg_is_other_temp_schema",
	"pg_table_is_visible", "pg_type_is_visible", "pg_function_is_visible",
}

// identityArg: a counter column as the first argument of an identity
// lookup, followed by the end of that argument.
var identityArg = regexp.MustCompile(`\b(` + strings.Join(identityLookups, "|") + `)\((?:[A-Za-z0-9_$]+|"[^"]+")\.oid\s*([,)])`)

// withoutIdentityArgs blanks the counter columns an identity lookup
// takes, so that counterColumn sees only the ones used otherwise.
func withoutIdentityArgs(expr string) string {
	return identityArg.ReplaceAllString(expr, "$1(object$2")
}

// bareColumn: an output that is one column or a whole row (t.*), as
// EXPLAIN prints it.
var bareColumn = regexp.MustCompile(`^(?:(?:[A-Za-z0-9_$]+|"[^"]+")\.)?(?:[A-Za-z0-9_$]+|"[^"]+"|\*)$`)

// plainEquality: a condition that compares two columns, or a column and
// a constant, for equality and does nothing else.
var plainEquality = regexp.MustCompile(`^\(?(?:[A-Za-z0-9_$]+|"[^"]+")\.(?:[A-Za-z0-9_$]+|"[^"]+") = (?:(?:[A-Za-z0-9_$]+|"[^"]+")\.(?:[A-Za-z0-9_$]+|"[^"]+")|'[0-9]+'::oid)\)?$`)

// orderComparison reports an expression with a comparison that shows
// which of two values is larger (< > <= >=).
func orderComparison(expr string) bool {
	stmts, _ := lex(expr)
	for _, ts := range stmts {
		for _, t := range ts {
			if t.kind == tokPunct && (t.text == "<" || t.text == ">" || t.text == "<=" || t.text == ">=") {
				return true
			}
		}
	}
	return false
}

// showsCounter reports what cluster-wide counter a statement's plan may
// show (Statement.Counter): it reads a TOAST table (its chunk_id is an
// oid), calls a function of counterCall, or shows a counter column or a
// cast to an oid or id type in what it returns or in the order it sorts
// by, or a counter column in any condition but a plain equality (an
// order, a cast, arithmetic). A join of two oid columns by = shows
// nothing (goose's EXISTS over pg_tables).
func showsCounter(plan map[string]any, reads Set, exprs []string) string {
	for r := range reads {
		if strings.HasPrefix(r, "pg_toast.") {
			return "oids (a TOAST table's chunk_id)"
		}
	}
	catalogs := false
	for r := range reads {
		catalogs = catalogs || strings.HasPrefix(r, "pg_catalog.")
	}
	for _, e := range exprs {
		if counterCall.MatchString(e) {
			return "transaction ids or oids (a function)"
		}
		if catalogs && wholeRow.MatchString(e) {
			return "oids (a whole catalog row)"
		}
	}
	shown := false
	var walk func(n map[string]any, top bool)
	walk = func(n map[string]any, top bool) {
		rel, _ := n["Parent Relationship"].(string)
		var texts []string
		if top || rel == "InitPlan" || rel == "SubPlan" {
			if outs, _ := n["Output"].([]any); len(outs) > 0 {
				for _, o := range outs {
					if s, _ := o.(string); s != "" {
						texts = append(texts, s)
					}
				}
			}
		}
		for _, key := range []string{"Sort Key", "Group Key", "Presorted Key"} {
			if ks, _ := n[key].([]any); len(ks) > 0 {
				for _, k := range ks {
					if s, _ := k.(string); s != "" {
						texts = append(texts, s)
					}
				}
			}
		}
		for _, t := range texts {
			if counterColumn.MatchString(withoutIdentityArgs(t)) || castShowsCounter(t) {
				shown = true
			}
		}
		// Below the top, a counter column passed on as it is shows
		// nothing yet; one computed with (compared, cast, in a CASE) may
		// come out under another name (review U).
		if !top {
			if outs, _ := n["Output"].([]any); len(outs) > 0 {
				for _, o := range outs {
					if s, _ := o.(string); s != "" && !bareColumn.MatchString(s) && counterColumn.MatchString(withoutIdentityArgs(s)) {
						shown = true
					}
				}
			}
		}
		for _, key := range []string{"Filter", "Join Filter", "Index Cond", "Recheck Cond", "Hash Cond", "Merge Cond", "One-Time Filter"} {
			c, _ := n[key].(string)
			if c == "" {
				continue
			}
			if castShowsCounter(c) {
				shown = true
			}
			parts := conjuncts(c)
			if parts == nil {
				parts = []string{c} // not split: judged whole
			}
			for _, part := range parts {
				// A counter column only compared for equality with
				// another column, or with a catalog's own oid, shows
				// nothing; in any other expression (an order, a cast,
				// arithmetic: case rq-oid-gap-join-filter) it may.
				if counterColumn.MatchString(withoutIdentityArgs(part)) && !plainEquality.MatchString(part) {
					shown = true
				}
			}
		}
		eachChild(n, func(m map[string]any) { walk(m, false) })
	}
	walk(plan, true)
	if shown {
		return "oids or transaction ids (a catalog column or a cast)"
	}
	return ""
}

// eachChild calls f with every plan node directly under n (its Plans, and
// any other node-valued field).
func eachChild(n map[string]any, f func(map[string]any)) {
	for _, v := range n {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				if m, ok := e.(map[string]any); ok {
					f(m)
				}
			}
		case map[string]any:
			f(x)
		}
	}
}

// onlyInserts reports a plan with a modifying node, every one of which
// inserts (Statement.Appends).
func onlyInserts(plan map[string]any) bool {
	seen, other := false, false
	var walk func(n map[string]any)
	walk = func(n map[string]any) {
		if n["Node Type"] == "ModifyTable" {
			seen = true
			other = other || n["Operation"] != "Insert"
		}
		eachChild(n, walk)
	}
	walk(plan)
	return seen && !other
}

// locksExact reads Statement.LocksExact from a statement's plan and text.
func locksExact(plan map[string]any, ts []token) bool {
	root := plan
	typ, _ := root["Node Type"].(string)
	if typ == "Limit" {
		if ps, _ := root["Plans"].([]any); len(ps) == 1 {
			if child, ok := ps[0].(map[string]any); ok {
				root = child
				typ, _ = root["Node Type"].(string)
			}
		}
	}
	if typ != "LockRows" && typ != "ModifyTable" {
		return false
	}
	if typ == "ModifyTable" {
		if op, _ := root["Operation"].(string); op != "Update" && op != "Delete" {
			return false
		}
	}
	for _, of := range [][]string{{"update", "of"}, {"share", "of"}} {
		if hasSeq(ts, of...) {
			return false
		}
	}
	exact := true
	var walk func(n map[string]any, top bool)
	walk = func(n map[string]any, top bool) {
		if _, ok := n["Subplan Name"]; ok {
			exact = false
		}
		t, _ := n["Node Type"].(string)
		switch t {
		case "CTE Scan", "Subquery Scan", "Function Scan", "WorkTable Scan", "Table Function Scan":
			exact = false
		case "LockRows", "ModifyTable":
			if !top {
				exact = false // a second one, inside
			}
		}
		eachChild(n, func(m map[string]any) { walk(m, false) })
	}
	walk(root, true)
	return exact
}

// explain returns the root plan node of sql's generic plan.
func (c *Classifier) explain(ctx context.Context, sql string) (map[string]any, error) {
	// The generic plan, with no partition pruned: the plan must name every
	// relation the statement could touch for any parameter values (a plan
	// explained with NULL parameters prunes every partition at executor
	// start-up).
	if _, err := c.conn.Exec(ctx, "SET plan_cache_mode = force_generic_plan"); err != nil {
		return nil, err
	}
	defer c.conn.Exec(context.WithoutCancel(ctx), "RESET plan_cache_mode")
	if _, err := c.conn.Exec(ctx, "SET enable_partition_pruning = off"); err != nil {
		return nil, err
	}
	defer c.conn.Exec(context.WithoutCancel(ctx), "RESET enable_partition_pruning")
	_, _ = c.conn.Exec(ctx, "DEALLOCATE IF EXISTS interleave_footprint")
	if _, err := c.conn.Exec(ctx, "PREPARE interleave_footprint AS "+sql); err != nil {
		return nil, firstLine(err)
	}
	defer c.conn.Exec(context.WithoutCancel(ctx), "DEALLOCATE interleave_footprint")
	var n int
	var timeParams bool
	if err := c.conn.QueryRow(ctx, `SELECT cardinality(parameter_types),
		EXISTS (SELECT 1 FROM unnest(parameter_types) p JOIN pg_type t ON t.oid = p
		  LEFT JOIN pg_type e ON e.oid = t.typelem AND t.typcategory = 'A'
		  WHERE COALESCE(e.typcategory, t.typcategory) = 'D' OR COALESCE(e.typtype, t.typtype) IN ('d', 'r', 'm', 'c') OR COALESCE(e.oid, t.oid) >= 16384)
		FROM pg_prepared_statements WHERE name = 'interleave_footprint'`).Scan(&n, &timeParams); err != nil {
		return nil, err
	}
	args := make([]string, n)
	for i := range args {
		args[i] = "NULL"
	}
	q := "EXPLAIN (VERBOSE, FORMAT JSON) EXECUTE interleave_footprint"
	if n > 0 {
		q += "(" + strings.Join(args, ", ") + ")"
	}
	var out []byte
	if err := c.conn.QueryRow(ctx, q).Scan(&out); err != nil {
		return nil, firstLine(err)
	}
	var doc []struct {
		Plan map[string]any `json:"Plan"`
	}
	if err := json.Unmarshal(out, &doc); err != nil || len(doc) != 1 || doc[0].Plan == nil {
		return nil, fmt.Errorf("EXPLAIN printed no plan")
	}
	if timeParams {
		// A parameter of a date or time type may be 'now' (case
		// recheck-now-param): the statement reads the clock.
		doc[0].Plan[timeParamsKey] = true
	}
	return doc[0].Plan, nil
}

func firstLine(err error) error {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return fmt.Errorf("%s", s)
}

// safeFunction reports whether every function named name is built in
// (pg_catalog) and not volatile: such a function cannot write (PostgreSQL
// runs non-volatile functions read-only) and reads no relation but what
// its arguments hold.
func (c *Classifier) safeFunction(ctx context.Context, name string) (safe, builtin bool, err error) {
	cat := c.catalog
	key := c.session + name // an unqualified name resolves in the session's search_path
	if f, known := cat.functions[key]; known {
		return f.safe, f.builtin, nil
	}
	schema, fn := "", strings.Trim(name, `"`)
	if s, f, ok := strings.Cut(fn, "."); ok {
		schema, fn = s, f
	}
	if observesOthers(fn) {
		f := function{safe: false, builtin: true, exists: true}
		cat.functions[key] = f
		return false, true, nil
	}
	var ok, bi *bool
	err = c.conn.QueryRow(ctx, `SELECT bool_and(p.oid < 16384 AND p.provolatile <> 'v'), bool_and(p.oid < 16384)
		FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE p.proname = $1 AND ($2 = '' OR n.nspname = $2)`, fn, schema).Scan(&ok, &bi)
	if err != nil {
		return false, false, err
	}
	f := function{safe: ok != nil && *ok, builtin: bi != nil && *bi, exists: ok != nil}
	cat.functions[key] = f
	return f.safe, f.builtin, nil
}

// functionExists reports whether some function is called name (as
// safeFunction looked it up).
func (c *Classifier) functionExists(name string) bool {
	return c.catalog.functions[c.session+name].exists
}

// counterWords are the names that show a value drawn from the cluster's
// transaction id or oid counters, or their order: system columns, types
// of such values, catalog columns and views that hold them, and the
// functions that return them. Words that begin with counterPrefixes
// count too.
var counterWords = map[string]bool{
	"xmin": true, "xmax": true, "cmin": true, "cmax": true, "tableoid": true,
	"regclass": true, "regtype": true, "regproc": true, "regprocedure": true, "regoper": true, "regoperator": true,
	"regrole": true, "regnamespace": true, "regconfig": true, "regdictionary": true, "regcollation": true,
	"relfilenode": true, "reltoastrelid": true, "chunk_id": true, "pg_toast": true, "transactionid": true,
	"backend_xid": true, "backend_xmin": true, "relfrozenxid": true, "relminmxid": true, "datfrozenxid": true, "datminmxid": true,
	"pg_locks": true, "pg_lock_status": true, "pg_stat_activity": true, "pg_stat_get_activity": true,
	"pg_prepared_xacts": true, "pg_prepared_xact": true, "pg_column_toast_chunk_id": true,
	"pg_relation_filenode": true, "pg_relation_filepath": true, "pg_current_snapshot": true,
	"lo_creat": true, "lo_create": true, "lo_import": true, "lo_from_bytea": true, "mxid_age": true, "pg_last_committed_xact": true,
	// WAL positions, which every writer advances (case rr-lsn-order-page-
	// header), and the extensions that read pages, row locks or WAL
	// (pageinspect, pgrowlocks, pg_walinspect, pg_buffercache,
	// pg_visibility, pgstattuple: rr-xid-order-pageinspect).
	"pg_current_wal_lsn": true, "pg_current_wal_insert_lsn": true, "pg_current_wal_flush_lsn": true, "pg_walfile_name": true,
	"pg_walfile_name_offset": true, "get_raw_page": true, "heap_page_items": true, "heap_page_item_attrs": true, "page_header": true,
	"heap_tuple_infomask_flags": true, "pgrowlocks": true, "pg_buffercache_pages": true, "pg_visibility": true, "pg_visibility_map": true,
	"pgstattuple": true, "pgstattuple_approx": true, "pgstatindex": true,
	// Other sessions' state: who blocks whom, backends' activity and its
	// times (case rr-activity-start-order).
	"pg_blocking_pids": true, "pg_safe_snapshot_blocking_pids": true, "pg_isolation_test_session_is_blocked": true,
	// SQL given as a string, run where no rule reads it (cases
	// rr-xid-order-query-to-xml-format).
	"query_to_xml": true, "query_to_xmlschema": true, "query_to_xml_and_xmlschema": true, "cursor_to_xml": true, "cursor_to_xmlschema": true,
	"ts_stat": true, "ts_rewrite": true, "crosstab": true, "crosstab2": true, "crosstab3": true, "crosstab4": true, "connectby": true,
	"xpath_table": true, // cases rs-xid-order-ts-stat-query, rs-xid-order-crosstab-query
	// When a statement was parsed or a cursor opened: the clock at a
	// moment no event marks (case rs-prepare-time-clock).
	"pg_prepared_statements": true, "pg_prepared_statement": true, "pg_cursors": true, "pg_cursor": true,
}

var counterPrefixes = []string{"txid_", "pg_snapshot_", "pg_xact_", "pg_current_xact_id", "pg_stat_", "pg_get_wal_"}

// counterCallPrefixes count only as a call (a table may be called
// bt_orders): pageinspect's index functions, dblink.
var counterCallPrefixes = []string{"bt_", "brin_", "gin_", "hash_page_", "dblink"}

// counterTypes are type names that show a counter only where a value is
// cast to them: a column may be called xid, and every catalog joins by
// its oid column (n.oid = c.relnamespace), which the plan judges
// (showsCounter).
var counterTypes = map[string]bool{"oid": true, "xid": true, "xid8": true, "cid": true}

// counterWordsSQL is counterWords as a PostgreSQL regular expression, for
// the sources of user functions (catalog.counterCode).
var counterWordsSQL = func() string {
	var ws []string
	for w := range counterWords {
		ws = append(ws, w)
	}
	sort.Strings(ws)
	for _, p := range append(append([]string{}, counterPrefixes...), counterCallPrefixes...) {
		ws = append(ws, p+"[a-z_]*")
	}
	// A procedural function that runs a string as SQL (EXECUTE) may
	// build any of them (case rr-xid-order-plpgsql-execute-format).
	return `\m(` + strings.Join(ws, "|") + `|execute)\M|::\s*(oid|xid8?|cid)\M`
}()

// CounterText reports SQL text that names a cluster-wide counter
// (counterWords, a cast to xid or cid), whatever runs it: a query, the
// query of COPY (...) TO or of EXPLAIN ANALYZE, a prepared statement's
// text (cases rp-xid-order-*, rq-xid-order-*, rq-oid-*, ver-toast-chunk-
// order). Its value, or the order of two such values, shows the order
// of writers that touch nothing in common: the engine does not judge an
// attempt that ran it. The planner folds 'w1'::regclass::oid into a
// constant, so the text is read, not only the plan.
func CounterText(sql string) bool {
	if strings.Contains(sql, `U&"`) || strings.Contains(sql, `u&"`) {
		// An identifier in Unicode escapes may spell any word
		// (case rr-oid-folded-regclass-unicode-escape).
		return true
	}
	stmts, ok := lex(sql)
	if !ok {
		return strings.Contains(strings.ToLower(sql), "xmin") // not lexed: judged by the plan
	}
	for _, ts := range stmts {
		for i, t := range ts {
			if t.kind != tokWord && t.kind != tokQuoted {
				continue
			}
			w := strings.Trim(t.text, `"`)
			if counterWords[w] {
				return true
			}
			for _, p := range counterPrefixes {
				if strings.HasPrefix(w, p) {
					return true
				}
			}
			if i+1 < len(ts) && ts[i+1].text == "(" {
				for _, p := range counterCallPrefixes {
					if strings.HasPrefix(w, p) {
						return true
					}
				}
			}
			if counterTypes[w] && i > 0 && (ts[i-1].text == ":" || ts[i-1].kind == tokWord && ts[i-1].text == "as") {
				return true
			}
		}
	}
	return false
}

// observesOthers reports a built-in function that PostgreSQL marks stable
// but whose result depends on relations its plan does not name or on other
// sessions' work before it commits:
// transaction ids (txid_current assigns one, in the order the sessions ask),
// snapshots of the transactions in progress, statistics counters, and the
// age of an id against the current one.
func observesOthers(fn string) bool {
	fn = strings.ToLower(fn)
	for _, p := range []string{"txid_", "pg_current_", "pg_stat_", "pg_snapshot", "pg_last_"} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	// table_to_xml and its kin are stable and read the relations their
	// arguments name, which no plan node shows.
	// pg_column_toast_chunk_id (PostgreSQL 17) returns an oid drawn from
	// the counter every toasted write shares (case ver-toast-chunk-order).
	return fn == "age" || fn == "mxid_age" || strings.Contains(fn, "_to_xml") || fn == "pg_column_toast_chunk_id"
}

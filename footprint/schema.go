package footprint

import (
	"context"
	"slices"
	"strings"
)

// Names that stand for state outside any relation. Relation names always
// hold a dot (schema.name), so these never meet one.
const (
	// Catalogs stands for the system catalogs. A CREATE TABLE writes it;
	// in an attempt that created tables (Classifier.AfterCreating), a
	// statement reads it when its plan reads a catalog (pg_class,
	// information_schema's views), when it calls a function that may look
	// a name up (to_regclass, has_table_privilege, ...: any function but
	// the plain ones of catalogFree), or when it names a created table.
	// (In other attempts nothing writes it, and nothing reads it.)
	Catalogs = "catalogs"
	// AdvisoryLocks stands for every advisory lock: the built-in advisory
	// lock functions read and write it. It is not transactional (a
	// session lock outlives a ROLLBACK): its writes are visible at once.
	AdvisoryLocks = "advisory locks"
)

// advisoryFunction reports one of PostgreSQL's advisory lock functions
// (pg_advisory_lock, pg_try_advisory_xact_lock_shared, pg_advisory_unlock_all, ...).
func advisoryFunction(name string) bool {
	name = strings.TrimPrefix(strings.ToLower(strings.Trim(name, `"`)), "pg_catalog.")
	name = strings.TrimPrefix(name, "pg_try_")
	name = strings.TrimPrefix(name, "pg_")
	return strings.HasPrefix(name, "advisory_")
}

// catalogFree are built-in functions that look no name up in the
// catalogs: aggregates, arithmetic, text and time. Any other function
// called by a statement counts as reading the catalogs (Catalogs).
var catalogFree = map[string]bool{
	"count": true, "sum": true, "min": true, "max": true, "avg": true, "bool_and": true, "bool_or": true, "every": true,
	"array_agg": true, "string_agg": true, "json_agg": true, "jsonb_agg": true,
	"now": true, "statement_timestamp": true, "transaction_timestamp": true, "date_trunc": true, "date_part": true, "extract": true,
	"lower": true, "upper": true, "length": true, "char_length": true, "concat": true, "concat_ws": true, "substr": true,
	"substring": true, "btrim": true, "ltrim": true, "rtrim": true, "replace": true, "left": true, "right": true,
	"lpad": true, "rpad": true, "strpos": true, "position": true, "md5": true,
	"abs": true, "round": true, "floor": true, "ceil": true, "ceiling": true, "mod": true,
	"array_length": true, "cardinality": true, "unnest": true, "generate_series": true,
	"json_build_object": true, "jsonb_build_object": true, "to_json": true, "to_jsonb": true,
	"row_number": true, "rank": true, "dense_rank": true, "lag": true, "lead": true,
}

func catalogFreeFunction(name string) bool {
	return catalogFree[strings.TrimPrefix(strings.ToLower(strings.Trim(name, `"`)), "pg_catalog.")]
}

// CreatesTables reports, for SQL text that ChangesSchema, whether every
// statement in it that changes the schema is a plain CREATE TABLE (not
// TEMP, not AS, not PARTITION OF or OF a type: a new, empty table
// with its indexes and constraints), and the names of the tables,
// unqualified and lower case. Such an attempt is still classified after
// the fact (docs/search.md, "Tables created by the actors"): the
// catalogs only gained what the statements created.
func CreatesTables(sql string) (names []string, ok bool) {
	stmts, ok := lex(sql)
	if !ok {
		return nil, false
	}
	for _, ts := range stmts {
		if !changesSchema(ts) {
			continue
		}
		n, ok := createdTable(ts)
		if !ok {
			return nil, false
		}
		names = append(names, n)
	}
	return names, true
}

// NamesTemp reports SQL text that names the temporary schema (pg_temp,
// in a name, a search_path or a string): a table created there is
// dropped when its session ends or at DISCARD, where no unit says so.
func NamesTemp(sql string) bool { return strings.Contains(strings.ToLower(sql), "pg_temp") }

// createdUnjudgedSQL finds what makes an attempt that created tables
// impossible to classify after the fact: a column of a reg* type (its
// input and output look names up where no plan shows it: cases
// tt-regclass-column-insert-param, tt-regclass-column-output-shadow), or
// a check constraint, of a table or a domain, that calls a function other
// than an operator's or one of catalogFree ($1), which may look a name up
// where no plan shows it (tt-check-reads-catalog,
// tt-domain-check-reads-catalog).
const createdUnjudgedSQL = `SELECT CASE
	WHEN EXISTS (SELECT 1 FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_type t ON t.oid = a.atttypid
	    WHERE c.oid >= 16384 AND a.attnum > 0 AND NOT a.attisdropped AND t.typname ~ '^_?reg')
	  THEN 'a column of a reg* type looks names up'
	WHEN EXISTS (SELECT 1 FROM pg_constraint k CROSS JOIN LATERAL regexp_matches(k.conbin::text, ':(?:op)?funcid (\d+)', 'g') m
	    JOIN pg_proc p ON p.oid = m[1]::oid
	    WHERE k.contype = 'c' AND p.oid NOT IN (SELECT oprcode FROM pg_operator) AND p.proname <> ALL ($1::text[]))
	  THEN 'a check constraint calls a function that may look names up'
	ELSE '' END`

// CreatedUnjudged says why an attempt that created tables cannot be
// classified in this database (createdUnjudgedSQL), or "".
func (c *Classifier) CreatedUnjudged(ctx context.Context) string {
	names := make([]string, 0, len(catalogFree))
	for n := range catalogFree {
		names = append(names, n)
	}
	var why string
	if err := c.conn.QueryRow(ctx, createdUnjudgedSQL, names).Scan(&why); err != nil {
		return "the catalogs could not be read: " + err.Error()
	}
	return why
}

// changesSchema reports whether a statement may change the schema: its
// first word says so, or it is a SELECT ... INTO, which creates a table
// (cases other-select-into-*).
func changesSchema(ts []token) bool {
	w := words(ts, 1)
	return len(w) > 0 && schemaWord[w[0]] || selectInto(ts)
}

// selectInto reports whether a SELECT (or WITH ... SELECT, VALUES, TABLE) has an INTO at its top level that is not INSERT's or
// MERGE's: SELECT ... INTO creates the table it names.
func selectInto(ts []token) bool {
	w := words(ts, 1)
	if len(w) == 0 || (w[0] != "select" && w[0] != "with" && w[0] != "values" && w[0] != "table") {
		return false
	}
	prev := ""
	for _, t := range ts {
		if t.kind != tokWord || t.depth != 0 {
			continue
		}
		if t.text == "into" && prev != "insert" && prev != "merge" {
			return true
		}
		prev = t.text
	}
	return false
}

// schemaWord are the first words of statements that may change the schema.
var schemaWord = map[string]bool{
	"create": true, "alter": true, "drop": true, "comment": true, "grant": true, "revoke": true, "security": true,
	"reindex": true, "cluster": true, "refresh": true, "import": true, "do": true, "call": true, "vacuum": true,
	"analyze": true, "load": true,
}

// createdTable reads CREATE [UNLOGGED] TABLE [IF NOT EXISTS] name ( ... )
// with nothing after the column list at its depth but options (no AS
// query, no PARTITION OF, no OF type), and returns the table's name,
// unqualified and lower case.
func createdTable(ts []token) (string, bool) {
	i := 0
	next := func(word string) bool {
		if i < len(ts) && ts[i].kind == tokWord && ts[i].text == word {
			i++
			return true
		}
		return false
	}
	if !next("create") {
		return "", false
	}
	next("unlogged")
	if !next("table") {
		return "", false
	}
	if next("if") && !(next("not") && next("exists")) {
		return "", false
	}
	name := ""
	for {
		if i >= len(ts) || (ts[i].kind != tokWord && ts[i].kind != tokQuoted) {
			return "", false
		}
		name = strings.ToLower(ts[i].text)
		i++
		if i < len(ts) && ts[i].kind == tokPunct && ts[i].text == "." {
			if strings.HasPrefix(name, "pg_temp") {
				// pg_temp.name is a temporary table, dropped when the
				// session ends (cases tt-temp-table-*).
				return "", false
			}
			i++
			continue
		}
		break
	}
	if i >= len(ts) || ts[i].kind != tokPunct || ts[i].text != "(" {
		return "", false
	}
	for _, t := range ts[i:] {
		if t.depth == 0 && t.kind == tokWord && t.text == "as" {
			return "", false
		}
	}
	return name, true
}

// AfterCreating tells the classifier that the attempt it classifies
// created the tables names (CreatesTables): a statement whose text names
// one of them, as a word, a quoted name or inside a string, reads the
// catalogs and every relation of that name in any schema, for it may have
// run before the table existed (and failed), or resolved the name to
// another schema's table. The classifier then keeps its footprints to
// itself: they hold for this attempt's catalogs only.
func (c *Classifier) AfterCreating(names []string) {
	if len(names) == 0 {
		return
	}
	c.created = append(c.created, names...)
	c.cache = NewCache()
}

// mentions is the names of created whose text ts holds.
func mentions(ts []token, created []string) []string {
	var out []string
	for _, n := range created {
		for _, t := range ts {
			if (t.kind == tokWord || t.kind == tokQuoted || t.kind == tokString) && strings.Contains(strings.ToLower(t.text), n) {
				out = append(out, n)
				break
			}
		}
	}
	return out
}

// namedEverywhere is schema.n for every schema of the database and every
// name n.
func (c *Classifier) namedEverywhere(ctx context.Context, names []string) ([]string, error) {
	if c.schemas == nil {
		rows, err := c.conn.Query(ctx, "SELECT nspname FROM pg_namespace")
		if err != nil {
			return nil, err
		}
		var all []string
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				rows.Close()
				return nil, err
			}
			all = append(all, s)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		c.schemas = all
	}
	var out []string
	for _, n := range names {
		for _, s := range c.schemas {
			out = append(out, s+"."+n)
		}
	}
	return out, nil
}

// touchCreated adds to a DML statement that names tables the attempt
// created what AfterCreating says it reads.
func (c *Classifier) touchCreated(ctx context.Context, ts []token, st Statement) Statement {
	if st.Kind != DML || len(c.created) == 0 {
		return st
	}
	named := mentions(ts, c.created)
	// A relation of a created table's name that the plan reads without the
	// text naming it (an inlined SQL function's body, a view's) resolved
	// somewhere too.
	for _, list := range [][]string{st.Reads, st.Writes, st.Locks} {
		for _, r := range list {
			rel, _ := SplitName(r)
			bare := strings.ToLower(rel[strings.LastIndexByte(rel, '.')+1:])
			if slices.Contains(c.created, bare) && !slices.Contains(named, bare) {
				named = append(named, bare)
			}
		}
	}
	if len(named) == 0 {
		return st
	}
	all, err := c.namedEverywhere(ctx, named)
	if err != nil {
		return global("the schemas could not be read: " + err.Error())
	}
	if len(st.Writes)+len(st.Locks) > 0 {
		// Before the table was created its name may have resolved to
		// another schema's relation of that name, whose defaults,
		// sequences, triggers and keys the statement then used (case
		// uu-created-shadows-path-insert-default-seq): only the reads of
		// that relation are followed here, so a write is global.
		var n int
		if err := c.conn.QueryRow(ctx, `SELECT count(*) FROM pg_class WHERE lower(relname) = ANY ($1) AND relkind IN ('r', 'p', 'v', 'f', 'm')`, named).Scan(&n); err != nil || n > len(named) {
			return codeFree("a created table's name may have named another schema's relation when it ran")
		}
	}
	reads := Set{}
	reads.Add(st.Reads...)
	reads.Add(Catalogs)
	reads.Add(all...)
	st.Reads = reads.Sorted()
	return st
}

// createTable is the footprint of a CREATE TABLE that createdTable reads:
// it writes the catalogs, the new table's name in every schema (where a
// name may resolve is a matter of search_path), and every existing
// relation any word of it names, in any schema (a parent it references or
// inherits from is locked and gains a trigger or a child).
func (c *Classifier) createTable(ctx context.Context, ts []token, name string) Statement {
	cat, err := c.loadCatalog(ctx)
	if err != nil {
		return global("the catalogs could not be read: " + err.Error())
	}
	if cat.eventTriggers {
		// An event trigger may run any statement as the table is
		// created (case create-event-trigger-shadow).
		return global("CREATE TABLE fires the database's event triggers")
	}
	var idents []string
	for _, t := range ts {
		if t.kind == tokWord || t.kind == tokQuoted {
			idents = append(idents, strings.ToLower(t.text))
		}
		if t.kind == tokWord && (t.text == "references" || t.text == "inherits" || t.text == "partition") {
			// It takes a relation lock on the table it references or
			// inherits from, which conflicts with the locks another
			// transaction's parsed statements hold on it (case
			// locks-parse-lock-create-references).
			return codeFree("CREATE TABLE locks the table it references or inherits from")
		}
	}
	writes := Set{}
	writes.Add(Catalogs)
	all, err := c.namedEverywhere(ctx, []string{name})
	if err != nil {
		return global("the schemas could not be read: " + err.Error())
	}
	writes.Add(all...)
	rows, err := c.conn.Query(ctx, `SELECT CASE WHEN c.relkind = 'S' THEN 'sequence ' ELSE '' END || format('%s.%s', n.nspname, c.relname)
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE lower(c.relname) = ANY($1) AND c.relkind IN ('r', 'p', 'f', 'v', 'm', 'S')`, idents)
	if err != nil {
		return global("the relations it names could not be read: " + err.Error())
	}
	for rows.Next() {
		var r string
		if err := rows.Scan(&r); err != nil {
			rows.Close()
			return global(err.Error())
		}
		writes.Add(r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return global(err.Error())
	}
	c.catalog.expand(writes)
	return Statement{Kind: DML, Reads: []string{Catalogs}, Writes: writes.Sorted(), Appends: true}
}

// advisoryCallOnly reads SELECT [schema.]f( args ) [[AS] alias] where f is
// an advisory lock function and the arguments are constants, parameters,
// commas, signs and casts: one call, executed once.
func advisoryCallOnly(ts []token) bool {
	i := 0
	if len(ts) < 4 || ts[0].kind != tokWord || ts[0].text != "select" {
		return false
	}
	i = 1
	name := ""
	for i < len(ts) && (ts[i].kind == tokWord || ts[i].kind == tokQuoted || (ts[i].kind == tokPunct && ts[i].text == ".")) {
		name += ts[i].text
		i++
	}
	if !advisoryFunction(name) || i >= len(ts) || ts[i].kind != tokPunct || ts[i].text != "(" {
		return false
	}
	d := ts[i].depth
	i++
	for ; i < len(ts) && !(ts[i].kind == tokPunct && ts[i].text == ")" && ts[i].depth == d); i++ {
		t := ts[i]
		switch {
		case t.kind == tokNumber || t.kind == tokParam || t.kind == tokString:
		case t.kind == tokPunct && (t.text == "," || t.text == ":" || t.text == "::" || t.text == "-" || t.text == "+"):
		case t.kind == tokWord && i > 0 && ts[i-1].kind == tokPunct && (ts[i-1].text == ":" || ts[i-1].text == "::"):
		default:
			return false
		}
	}
	if i >= len(ts) {
		return false
	}
	rest := ts[i+1:]
	switch {
	case len(rest) == 0:
		return true
	case len(rest) == 1 && (rest[0].kind == tokWord || rest[0].kind == tokQuoted):
		return rest[0].text != "from"
	case len(rest) == 2 && rest[0].kind == tokWord && rest[0].text == "as" && (rest[1].kind == tokWord || rest[1].kind == tokQuoted):
		return true
	}
	return false
}

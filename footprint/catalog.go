package footprint

import "context"

// catalog is what the database's catalogs say about relations beyond a
// plan: read once per classifier (the schema after setup is the same for
// every attempt; a statement that changes it is Global).
type catalog struct {
	// family: a relation's ancestors and descendants (inheritance and
	// partitions), itself included.
	family map[string][]string
	// parents and children: foreign keys (child references parent).
	parents, children map[string][]string
	// sequences a relation's column defaults or identity columns draw from.
	sequences map[string][]string
	// complex: relations with something that runs code we do not analyse
	// (a user trigger, a rule, row security, a user function in a default,
	// check, index or policy), and why.
	complex       map[string]string
	userOperators bool
	// userCode says why DML cannot be classified: user code PostgreSQL
	// runs that no plan prints (a cast's function, an operator class's
	// support function, a domain's check or default), or "".
	userCode string
	// userNextval: a function named nextval outside pg_catalog.
	userNextval bool
	// eventTriggers: the database has an enabled event trigger, which may
	// run any code when a table is created.
	eventTriggers bool
	// counterCode: a user function whose source shows a cluster-wide
	// counter (counterWord): called by a statement, a trigger or a
	// default, it may show the order of writers that touch nothing in
	// common (case rq-xid-order-sql-function).
	counterCode bool
	// truncateCode: the database has a user trigger ON TRUNCATE or a
	// foreign table (whose TRUNCATE runs its wrapper's code).
	truncateCode bool
	// unsafeCompare: a user relation has a column whose comparisons may
	// raise for some values only (unsafeCompareSQL).
	unsafeCompare bool
	functions     map[string]function // by session and name
	// seqs: the sequences, as schema.name.
	seqs map[string]bool
	// keys: tables whose rows a statement may name by key (rowkey.go),
	// and the key column as EXPLAIN prints it; keyNames: the same
	// column's name as the catalog has it (setsColumn).
	keys, keyNames map[string]string
	// callingViews: views (by name, schema-qualified and not) whose
	// query, or a view's under it, calls a user function or a volatile
	// one: the plan may not print the call.
	callingViews map[string]bool
	// fkCols: a table's single-column foreign keys, by the referencing
	// column as EXPLAIN would print it (insertParentKeys).
	fkCols map[string][]fkCol
	// setDefault: child and parent of a foreign key whose action on
	// delete or update is SET DEFAULT: the child's new value locks
	// another of the parent's rows.
	setDefault map[[2]string]bool
	// views: the names of the database's views, in any schema.
	views map[string]bool
	// deferrable: relations with a deferrable constraint, and the
	// parents a deferrable foreign key references (Statement.Deferred).
	deferrable map[string]bool
}

// fkCol is one single-column foreign key of a table.
type fkCol struct{ col, parent string }

// function is what is known of the functions a name calls.
type function struct{ safe, builtin, exists bool }

// checkFunctionSQL is true of a function p that a check constraint may
// call and no plan shows: volatile (nextval, an advisory lock function,
// random), or one that sees other sessions (observesOthers' names).
// Built-in functions have no pg_depend rows (they are pinned), so checks
// are read from their stored expressions (cases part-check-nextval,
// part-check-advisory).
const checkFunctionSQL = `p.oid >= 16384 OR p.provolatile = 'v' OR p.proname ~ '^(txid_|pg_current_|pg_stat_|pg_snapshot|pg_last_)' OR p.proname IN ('age', 'mxid_age', 'pg_column_toast_chunk_id') OR p.proname LIKE '%\_to\_xml%'`

func (c *Classifier) loadCatalog(ctx context.Context) (*catalog, error) {
	if c.catalog != nil {
		return c.catalog, nil
	}
	cat := &catalog{family: map[string][]string{}, parents: map[string][]string{}, children: map[string][]string{},
		sequences: map[string][]string{}, complex: map[string]string{}, functions: map[string]function{}, seqs: map[string]bool{}, keys: map[string]string{}, keyNames: map[string]string{}}
	pairs := func(q string, f func(a, b string)) error {
		rows, err := c.conn.Query(ctx, q)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var a, b string
			if err := rows.Scan(&a, &b); err != nil {
				return err
			}
			f(a, b)
		}
		return rows.Err()
	}
	const rel = `format('%s.%s', n.nspname, c.relname)`
	// Inheritance and partitions, both ways, transitively.
	edges := map[string][]string{}
	if err := pairs(`SELECT format('%s.%s', cn.nspname, c.relname), format('%s.%s', pn.nspname, p.relname)
		FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_namespace cn ON cn.oid = c.relnamespace
		JOIN pg_class p ON p.oid = i.inhparent JOIN pg_namespace pn ON pn.oid = p.relnamespace`, func(child, parent string) {
		edges[child] = append(edges[child], parent)
		edges[parent] = append(edges[parent], child)
	}); err != nil {
		return nil, err
	}
	for r := range edges {
		seen := map[string]bool{r: true}
		stack := []string{r}
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, y := range edges[x] {
				if !seen[y] {
					seen[y] = true
					stack = append(stack, y)
				}
			}
		}
		for y := range seen {
			cat.family[r] = append(cat.family[r], y)
		}
	}
	if err := pairs(`SELECT format('%s.%s', cn.nspname, c.relname), format('%s.%s', pn.nspname, p.relname)
		FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace cn ON cn.oid = c.relnamespace
		JOIN pg_class p ON p.oid = k.confrelid JOIN pg_namespace pn ON pn.oid = p.relnamespace WHERE k.contype = 'f'`, func(child, parent string) {
		cat.parents[child] = append(cat.parents[child], parent)
		cat.children[parent] = append(cat.children[parent], child)
	}); err != nil {
		return nil, err
	}
	cat.setDefault, cat.deferrable = map[[2]string]bool{}, map[string]bool{}
	if err := pairs(`SELECT format('%s.%s', cn.nspname, c.relname), format('%s.%s', pn.nspname, p.relname)
		FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace cn ON cn.oid = c.relnamespace
		JOIN pg_class p ON p.oid = k.confrelid JOIN pg_namespace pn ON pn.oid = p.relnamespace
		WHERE k.contype = 'f' AND (k.confdeltype = 'd' OR k.confupdtype = 'd')`, func(child, parent string) {
		cat.setDefault[[2]string{child, parent}] = true
	}); err != nil {
		return nil, err
	}
	if err := pairs(`SELECT format('%s.%s', n.nspname, c.relname), coalesce((SELECT format('%s.%s', pn.nspname, p.relname)
		  FROM pg_class p JOIN pg_namespace pn ON pn.oid = p.relnamespace WHERE p.oid = k.confrelid), '')
		FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE k.condeferrable`, func(rel, parent string) {
		cat.deferrable[rel] = true
		if parent != "" {
			cat.deferrable[parent] = true
		}
	}); err != nil {
		return nil, err
	}
	cat.fkCols = map[string][]fkCol{}
	rows, err := c.conn.Query(ctx, `SELECT format('%s.%s', cn.nspname, c.relname), quote_ident(a.attname), format('%s.%s', pn.nspname, p.relname)
		FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace cn ON cn.oid = c.relnamespace
		JOIN pg_class p ON p.oid = k.confrelid JOIN pg_namespace pn ON pn.oid = p.relnamespace
		JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1]
		WHERE k.contype = 'f' AND array_length(k.conkey, 1) = 1`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var child, col, parent string
		if err := rows.Scan(&child, &col, &parent); err != nil {
			rows.Close()
			return nil, err
		}
		cat.fkCols[child] = append(cat.fkCols[child], fkCol{col: col, parent: parent})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// Sequences owned by a column (serial, identity) and sequences a
	// default names.
	if err := pairs(`SELECT `+rel+`, format('sequence %s.%s', sn.nspname, s.relname)
		FROM pg_depend d JOIN pg_class s ON s.oid = d.objid AND s.relkind = 'S' JOIN pg_namespace sn ON sn.oid = s.relnamespace
		JOIN pg_class c ON c.oid = d.refobjid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')
		UNION
		SELECT `+rel+`, format('sequence %s.%s', sn.nspname, s.relname)
		FROM pg_attrdef a JOIN pg_depend d ON d.classid = 'pg_attrdef'::regclass AND d.objid = a.oid AND d.refclassid = 'pg_class'::regclass
		JOIN pg_class s ON s.oid = d.refobjid AND s.relkind = 'S' JOIN pg_namespace sn ON sn.oid = s.relnamespace
		JOIN pg_class c ON c.oid = a.adrelid JOIN pg_namespace n ON n.oid = c.relnamespace`, func(r, seq string) {
		cat.sequences[r] = append(cat.sequences[r], seq)
	}); err != nil {
		return nil, err
	}
	// Code that runs on access: user triggers, rules other than a view's,
	// row security, and user functions or volatile built-ins behind
	// defaults, checks, indexes and policies.
	if err := pairs(`
		SELECT `+rel+`, 'has a trigger' FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
		  JOIN pg_namespace n ON n.oid = c.relnamespace WHERE NOT t.tgisinternal
		UNION ALL SELECT `+rel+`, 'has a rule' FROM pg_rewrite w JOIN pg_class c ON c.oid = w.ev_class
		  JOIN pg_namespace n ON n.oid = c.relnamespace WHERE w.rulename <> '_RETURN'
		UNION ALL SELECT `+rel+`, 'has row security' FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relrowsecurity
		UNION ALL SELECT `+rel+`, 'calls a function in a default, check, index or policy'
		  FROM pg_depend d JOIN pg_proc p ON d.refclassid = 'pg_proc'::regclass AND p.oid = d.refobjid
		  JOIN pg_namespace pn ON pn.oid = p.pronamespace
		  JOIN LATERAL (
		    SELECT a.adrelid AS relid FROM pg_attrdef a WHERE d.classid = 'pg_attrdef'::regclass AND a.oid = d.objid
		    UNION ALL SELECT k.conrelid FROM pg_constraint k WHERE d.classid = 'pg_constraint'::regclass AND k.oid = d.objid
		    UNION ALL SELECT i.indrelid FROM pg_index i WHERE d.classid = 'pg_class'::regclass AND i.indexrelid = d.objid
		    UNION ALL SELECT pol.polrelid FROM pg_policy pol WHERE d.classid = 'pg_policy'::regclass AND pol.oid = d.objid
		    UNION ALL SELECT pk.partrelid FROM pg_partitioned_table pk WHERE d.classid = 'pg_class'::regclass AND pk.partrelid = d.objid
		  ) o ON true
		  JOIN pg_class c ON c.oid = o.relid JOIN pg_namespace n ON n.oid = c.relnamespace
		  WHERE (p.oid >= 16384 OR p.provolatile = 'v') AND p.proname NOT IN ('nextval')
		UNION ALL SELECT `+rel+`, 'calls a volatile function, or one that sees other sessions, in a check constraint'
		  FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		  CROSS JOIN LATERAL regexp_matches(k.conbin::text, ':(?:op)?funcid (\d+)', 'g') m
		  JOIN pg_proc p ON p.oid = m[1]::oid
		  WHERE k.contype = 'c' AND (`+checkFunctionSQL+`)
		UNION ALL SELECT `+rel+`, 'calls a volatile function, or one that sees other sessions, in a default'
		  FROM pg_attrdef a JOIN pg_class c ON c.oid = a.adrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		  CROSS JOIN LATERAL regexp_matches(a.adbin::text, ':(?:op)?funcid (\d+)', 'g') m
		  JOIN pg_proc p ON p.oid = m[1]::oid
		  WHERE p.proname <> 'nextval' AND (`+checkFunctionSQL+`)`, func(r, why string) {
		if _, ok := cat.complex[r]; !ok {
			cat.complex[r] = why
		}
	}); err != nil {
		return nil, err
	}
	// A write through a view WITH CHECK OPTION checks the view's
	// condition, which no plan prints (case
	// names-view-check-option-function): the relations under such a view
	// are complex.
	if err := pairs(`WITH RECURSIVE under AS (
		  SELECT c.oid FROM pg_class c WHERE c.relkind = 'v' AND array_to_string(c.reloptions, ',') LIKE '%check_option%'
		  UNION
		  SELECT d.refobjid FROM under JOIN pg_rewrite r ON r.ev_class = under.oid
		    JOIN pg_depend d ON d.classid = 'pg_rewrite'::regclass AND d.objid = r.oid AND d.refclassid = 'pg_class'::regclass
		  WHERE d.refobjid <> under.oid)
		SELECT `+rel+`, 'is under a view WITH CHECK OPTION' FROM under JOIN pg_class c ON c.oid = under.oid
		  JOIN pg_namespace n ON n.oid = c.relnamespace`, func(r, why string) {
		if _, ok := cat.complex[r]; !ok {
			cat.complex[r] = why
		}
	}); err != nil {
		return nil, err
	}
	if err := pairs(`SELECT `+rel+`, '' FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind = 'S'`, func(r, _ string) {
		cat.seqs[r] = true
	}); err != nil {
		return nil, err
	}
	if err := c.conn.QueryRow(ctx, counterCodeSQL, counterWordsSQL, identityLookups).Scan(&cat.counterCode); err != nil {
		return nil, err
	}
	if err := c.conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_event_trigger WHERE evtenabled <> 'D')").Scan(&cat.eventTriggers); err != nil {
		return nil, err
	}
	if err := c.conn.QueryRow(ctx, unsafeCompareSQL).Scan(&cat.unsafeCompare); err != nil {
		return nil, err
	}
	if err := c.conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_trigger WHERE NOT tgisinternal AND (tgtype & 32) <> 0)
		OR EXISTS (SELECT 1 FROM pg_class WHERE relkind = 'f')`).Scan(&cat.truncateCode); err != nil {
		return nil, err
	}
	if err := c.conn.QueryRow(ctx, `SELECT CASE
		WHEN EXISTS (SELECT 1 FROM pg_cast WHERE oid >= 16384 AND castfunc <> 0) THEN 'the database defines casts; their functions are not analysed'
		WHEN EXISTS (SELECT 1 FROM pg_opclass WHERE oid >= 16384) THEN 'the database defines operator classes; their support functions are not analysed'
		WHEN EXISTS (SELECT 1 FROM pg_depend d JOIN pg_proc p ON d.refclassid = 'pg_proc'::regclass AND p.oid = d.refobjid
		    JOIN pg_namespace n ON n.oid = p.pronamespace
		    LEFT JOIN pg_constraint k ON d.classid = 'pg_constraint'::regclass AND k.oid = d.objid
		    LEFT JOIN pg_type t ON d.classid = 'pg_type'::regclass AND t.oid = d.objid
		  WHERE (k.contypid <> 0 OR t.typtype = 'd') AND (p.oid >= 16384 OR p.provolatile = 'v'))
		  THEN 'the database has a domain whose check or default calls a user or volatile function'
		WHEN EXISTS (SELECT 1 FROM pg_constraint k CROSS JOIN LATERAL regexp_matches(k.conbin::text, ':(?:op)?funcid (\d+)', 'g') m
		    JOIN pg_proc p ON p.oid = m[1]::oid WHERE k.contypid <> 0 AND (`+checkFunctionSQL+`))
		  THEN 'the database has a domain whose check calls a volatile function, or one that sees other sessions'
		WHEN EXISTS (SELECT 1 FROM pg_type t CROSS JOIN LATERAL regexp_matches(t.typdefaultbin::text, ':(?:op)?funcid (\d+)', 'g') m
		    JOIN pg_proc p ON p.oid = m[1]::oid WHERE t.typtype = 'd' AND (`+checkFunctionSQL+`))
		  THEN 'the database has a domain whose default calls a volatile function (nextval too), or one that sees other sessions'
		WHEN EXISTS (SELECT 1 FROM pg_class WHERE relkind = 'f')
		  THEN 'the database has foreign tables: what a write to one does is not known'
		ELSE '' END,
		EXISTS (SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE p.proname = 'nextval' AND p.oid >= 16384)`).Scan(&cat.userCode, &cat.userNextval); err != nil {
		return nil, err
	}
	if err := c.conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_operator WHERE oid >= 16384)").Scan(&cat.userOperators); err != nil {
		return nil, err
	}
	if err := c.loadKeys(ctx, cat); err != nil {
		return nil, err
	}
	cat.callingViews = map[string]bool{}
	if err := pairs(`WITH RECURSIVE v AS (
		  SELECT DISTINCT r.ev_class AS oid FROM pg_rewrite r
		    CROSS JOIN LATERAL regexp_matches(r.ev_action::text, ':(?:op)?funcid (\d+)', 'g') m
		    JOIN pg_proc p ON p.oid = m[1]::oid
		  WHERE `+checkFunctionSQL+`
		  UNION
		  SELECT r.ev_class FROM v JOIN pg_depend d ON d.refclassid = 'pg_class'::regclass AND d.refobjid = v.oid AND d.classid = 'pg_rewrite'::regclass
		    JOIN pg_rewrite r ON r.oid = d.objid WHERE r.ev_class <> v.oid)
		SELECT c.relname, n.nspname FROM v JOIN pg_class c ON c.oid = v.oid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relkind IN ('v', 'm')`, func(rel, _ string) {
		cat.callingViews[rel] = true
	}); err != nil {
		return nil, err
	}
	c.catalog = cat
	return cat, nil
}

// expand adds the inheritance family of every relation in s.
func (cat *catalog) expand(s Set) {
	for r := range s {
		s.Add(cat.family[r]...)
	}
}

// CounterCode reports a user function whose source shows a cluster-wide
// counter (counterWordsSQL): the engine does not judge an attempt on such
// a database, since a statement, a trigger or a default may call it
// unseen (case rq-xid-order-sql-function). One query, not the whole
// catalog: the engine asks it of every attempt.
func (c *Classifier) CounterCode(ctx context.Context) bool {
	if c.catalog != nil {
		return c.catalog.counterCode
	}
	var found bool
	if err := c.conn.QueryRow(ctx, counterCodeSQL, counterWordsSQL, identityLookups).Scan(&found); err != nil {
		return true
	}
	return found
}

// counterCodeSQL finds a user function whose source matches $1, or whose
// name is one of identityLookups ($2): a user function of that
// name could print as PostgreSQL's own in a plan.
// A domain over a counter's type (or over another domain) hides the cast
// CounterText and the plan look for (case tt-oid-folded-through-domains).
// A view's query or a rule's action is code no rule reads either when
// a function reads the view or a write fires the rule (cases
// rs-xid-order-function-reads-view, rs-xid-order-rule-action).
const counterCodeSQL = `SELECT EXISTS (SELECT 1 FROM pg_proc WHERE oid >= 16384 AND (prosrc ~* $1 OR proname = ANY ($2::text[])))
	OR EXISTS (SELECT 1 FROM pg_rewrite WHERE oid >= 16384 AND pg_get_ruledef(oid) ~* $1)
	OR EXISTS (SELECT 1 FROM pg_type d JOIN pg_type b ON b.oid = d.typbasetype
	    WHERE d.typtype = 'd' AND (b.typname ~ '^(oid|xid|xid8|cid|tid|reg.*)$' OR b.typtype = 'd'))`

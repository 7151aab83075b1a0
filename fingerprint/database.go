package fingerprint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave/artifact"
)

// userObjectsSQL describes every object in user schemas, one line each, so
// that a hash of the lines changes with any definition.
const userObjectsSQL = `
WITH ns AS (
  SELECT oid, nspname FROM pg_namespace
  WHERE nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
    AND nspname NOT LIKE 'pg_temp_%' AND nspname NOT LIKE 'pg_toast_temp_%'
), objs AS (
  SELECT 'schema' AS kind, format('schema %I', nspname) AS line FROM ns
  UNION ALL
  SELECT CASE c.relkind WHEN 'r' THEN 'table' WHEN 'p' THEN 'table' WHEN 'v' THEN 'view' WHEN 'm' THEN 'view'
                        WHEN 'S' THEN 'sequence' WHEN 'i' THEN 'index' WHEN 'I' THEN 'index' ELSE 'relation' END,
         format('rel %I.%I %s %s', ns.nspname, c.relname, c.relkind,
                CASE WHEN c.relkind IN ('v', 'm') THEN pg_get_viewdef(c.oid)
                     WHEN c.relkind IN ('i', 'I') THEN pg_get_indexdef(c.oid) ELSE '' END)
  FROM pg_class c JOIN ns ON ns.oid = c.relnamespace
  UNION ALL
  SELECT 'column', format('col %I.%I.%I %s notnull=%s default=%s', ns.nspname, c.relname, a.attname,
                          format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(d.adbin, d.adrelid))
  FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN ns ON ns.oid = c.relnamespace
  LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
  WHERE a.attnum > 0 AND NOT a.attisdropped
  UNION ALL
  SELECT 'constraint', format('con %I.%I %s', ns.nspname, co.conname, pg_get_constraintdef(co.oid))
  FROM pg_constraint co JOIN ns ON ns.oid = co.connamespace
  UNION ALL
  SELECT 'function', format('fn %I.%I(%s) %s', ns.nspname, p.proname, pg_get_function_identity_arguments(p.oid), md5(coalesce(p.prosrc, '')))
  FROM pg_proc p JOIN ns ON ns.oid = p.pronamespace
  UNION ALL
  SELECT 'trigger', format('trg %s', pg_get_triggerdef(t.oid))
  FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN ns ON ns.oid = c.relnamespace WHERE NOT t.tgisinternal
  UNION ALL
  SELECT 'type', format('type %I.%I %s %s %s', ns.nspname, t.typname, t.typtype, format_type(t.typbasetype, t.typtypmod),
                        (SELECT string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder) FROM pg_enum e WHERE e.enumtypid = t.oid))
  FROM pg_type t JOIN ns ON ns.oid = t.typnamespace WHERE t.typtype IN ('e', 'd')
  UNION ALL
  SELECT 'extension', format('ext %I %s', extname, extversion) FROM pg_extension
  UNION ALL
  SELECT 'setting', format('set %s', array_to_string(setconfig, ','))
  FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase WHERE d.datname = current_database()
)
SELECT kind, line FROM objs ORDER BY kind, line`

const userTablesSQL = `
SELECT format('%I.%I', n.nspname, c.relname), c.relkind = 'S'
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'S')
  AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
  AND n.nspname NOT LIKE 'pg_temp_%' AND n.nspname NOT LIKE 'pg_toast_temp_%'
ORDER BY 1`

// Database describes the database after setup: a hash of every
// definition in user schemas, and per table its row count and a hash of its
// rows (sequences: their state), with counts by kind.
func Database(ctx context.Context, conn *pgx.Conn) (*artifact.DatabasePrint, error) {
	p := &artifact.DatabasePrint{Objects: map[string]int{}, Parts: map[string]string{}}
	rows, err := conn.Query(ctx, userObjectsSQL)
	if err != nil {
		return nil, fmt.Errorf("fingerprint the database schema: %w", err)
	}
	schema := sha256.New()
	for rows.Next() {
		var kind, line string
		if err := rows.Scan(&kind, &line); err != nil {
			return nil, err
		}
		p.Objects[kind+"s"]++
		schema.Write([]byte(line + "\n"))
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	p.Parts["schema"] = hex.EncodeToString(schema.Sum(nil))[:16]

	rows, err = conn.Query(ctx, userTablesSQL)
	if err != nil {
		return nil, err
	}
	type rel struct {
		name string
		seq  bool
	}
	var rels []rel
	for rows.Next() {
		var r rel
		if err := rows.Scan(&r.name, &r.seq); err != nil {
			return nil, err
		}
		rels = append(rels, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, r := range rels {
		var desc string
		if r.seq {
			var last int64
			var called bool
			if err := conn.QueryRow(ctx, "SELECT last_value, is_called FROM "+r.name).Scan(&last, &called); err != nil {
				return nil, fmt.Errorf("fingerprint sequence %s: %w", r.name, err)
			}
			desc = fmt.Sprintf("last_value %d, is_called %v", last, called)
			p.Parts["sequence "+r.name] = desc
			continue
		}
		var n int64
		var md5 *string
		q := "SELECT count(*), md5(string_agg(t::text, E'\\n' ORDER BY t::text)) FROM " + r.name + " t"
		if err := conn.QueryRow(ctx, q).Scan(&n, &md5); err != nil {
			return nil, fmt.Errorf("fingerprint table %s: %w", r.name, err)
		}
		p.Objects["rows"] += int(n)
		desc = fmt.Sprintf("%d rows", n)
		if md5 != nil {
			desc += ", md5 " + (*md5)[:16]
		}
		p.Parts["table "+r.name] = desc
	}
	keys := make([]string, 0, len(p.Parts))
	for k := range p.Parts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	all := sha256.New()
	for _, k := range keys {
		all.Write([]byte(k + "=" + p.Parts[k] + "\n"))
	}
	p.Hash = hex.EncodeToString(all.Sum(nil))[:16]
	return p, nil
}

// schemaExtraSQL adds to userObjectsSQL what changes how statements run
// without being a definition it lists: rules, row security policies and
// the row security switches; and each table constraint's table ("conrel
// schema.constraint schema.table"), which a "con" line does not name.
const schemaExtraSQL = `
SELECT format('rule %s', pg_get_ruledef(r.oid)) FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class
  JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND r.rulename <> '_RETURN'
UNION ALL
SELECT format('policy %s %s %s %s %s', p.polrelid::regclass, p.polname, p.polcmd, pg_get_expr(p.polqual, p.polrelid), pg_get_expr(p.polwithcheck, p.polrelid))
  FROM pg_policy p
UNION ALL
SELECT format('rls %s %s %s', c.oid::regclass, c.relrowsecurity, c.relforcerowsecurity) FROM pg_class c
  WHERE c.relrowsecurity OR c.relforcerowsecurity
UNION ALL
SELECT format('conrel %I.%I %I.%I', cn.nspname, co.conname, n.nspname, c.relname)
  FROM pg_constraint co JOIN pg_namespace cn ON cn.oid = co.connamespace
  JOIN pg_class c ON c.oid = co.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
UNION ALL
SELECT format('inherits %I.%I %I.%I %s', cn.nspname, c.relname, pn.nspname, p.relname, coalesce(pg_get_expr(c.relpartbound, c.oid), ''))
  FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_namespace cn ON cn.oid = c.relnamespace
  JOIN pg_class p ON p.oid = i.inhparent JOIN pg_namespace pn ON pn.oid = p.relnamespace
UNION ALL
SELECT format('funcattr %s %s %s %s %s %s %s', p.oid::regprocedure, p.provolatile, p.prosecdef, p.proisstrict, p.proconfig, p.prolang, md5(p.prosrc))
  FROM pg_proc p WHERE p.oid >= 16384
UNION ALL
SELECT format('trigger %s %s %s', t.tgrelid::regclass, t.tgname, t.tgenabled) FROM pg_trigger t WHERE NOT t.tgisinternal
UNION ALL
SELECT format('reloptions %s %s', c.oid::regclass, c.reloptions) FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.reloptions IS NOT NULL AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
UNION ALL
SELECT format('event trigger %s %s %s %s %s', e.evtname, e.evtevent, e.evtenabled, e.evtfoid::regproc, e.evttags) FROM pg_event_trigger e`

// SchemaLines lists every definition in user schemas, one line each (the
// lines Database hashes), with rules, policies and row security: what a
// statement classified against the catalogs after an attempt depends on.
func SchemaLines(ctx context.Context, conn *pgx.Conn) ([]string, error) {
	var out []string
	for _, q := range []string{userObjectsSQL, schemaExtraSQL} {
		rows, err := conn.Query(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("list the database schema: %w", err)
		}
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				rows.Close()
				return nil, err
			}
			if s, ok := vals[len(vals)-1].(string); ok {
				out = append(out, s)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}

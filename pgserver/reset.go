package pgserver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Pristine is what a database looked like when it was created, so that
// ResetDatabase can return it to that state without CREATE DATABASE (which
// costs tens of milliseconds and forces checkpoints).
type Pristine struct {
	publicOwner string
	publicACL   []string // GRANT statements for schema public
	schemas     []string // schemas present at creation besides public
}

// Snapshot records the state of a freshly created database. conn must be
// connected to that database.
func Snapshot(ctx context.Context, conn *pgx.Conn) (*Pristine, error) {
	p := &Pristine{}
	err := conn.QueryRow(ctx, `SELECT pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname = 'public'`).Scan(&p.publicOwner)
	if err != nil && err != pgx.ErrNoRows {
		return nil, fmt.Errorf("snapshot schema public: %w", err)
	}
	rows, err := conn.Query(ctx, `
		SELECT format('GRANT %s ON SCHEMA public TO %s', a.privilege_type,
		              CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(a.grantee)) END)
		FROM pg_namespace n, aclexplode(coalesce(n.nspacl, acldefault('n', n.nspowner))) a
		WHERE n.nspname = 'public' ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("snapshot schema public privileges: %w", err)
	}
	p.publicACL, err = pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	rows, err = conn.Query(ctx, userSchemasSQL)
	if err != nil {
		return nil, err
	}
	all, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	for _, s := range all {
		if s != "public" {
			p.schemas = append(p.schemas, s)
		}
	}
	return p, nil
}

const userSchemasSQL = `SELECT nspname FROM pg_namespace
	WHERE nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
	  AND nspname NOT LIKE 'pg_temp_%' AND nspname NOT LIKE 'pg_toast_temp_%'
	ORDER BY nspname`

// ResetDatabase returns the database conn is connected to (database name db)
// to its pristine state: other sessions terminated, every user schema dropped
// and public recreated with its original owner and privileges, large objects,
// event triggers and publications removed, database-level settings reset.
// Objects outside the database (roles, tablespaces) are never touched.
// Sessions whose backend pid is in keep (the caller's own helpers, idle)
// are left alone.
func ResetDatabase(ctx context.Context, conn *pgx.Conn, db string, p *Pristine, keep ...uint32) error {
	if !IsOwnedName(db) {
		return fmt.Errorf("refusing to reset database %q: Interleave did not create it", db)
	}
	if err := TerminateSessions(ctx, conn, keep...); err != nil {
		return err
	}
	rows, err := conn.Query(ctx, userSchemasSQL)
	if err != nil {
		return err
	}
	schemas, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, s := range schemas {
		if s == "public" || !contains(p.schemas, s) {
			fmt.Fprintf(&b, "DROP SCHEMA %s CASCADE;\n", pgx.Identifier{s}.Sanitize())
		}
	}
	b.WriteString("CREATE SCHEMA public;\n")
	if p.publicOwner != "" {
		fmt.Fprintf(&b, "ALTER SCHEMA public OWNER TO %s;\n", pgx.Identifier{p.publicOwner}.Sanitize())
	}
	b.WriteString("REVOKE ALL ON SCHEMA public FROM PUBLIC;\n")
	for _, g := range p.publicACL {
		b.WriteString(g + ";\n")
	}
	fmt.Fprintf(&b, "ALTER DATABASE %s RESET ALL;\n", pgx.Identifier{db}.Sanitize())
	b.WriteString(`DO $$DECLARE r record; BEGIN
		FOR r IN SELECT oid FROM pg_largeobject_metadata LOOP PERFORM lo_unlink(r.oid); END LOOP;
		FOR r IN SELECT evtname FROM pg_event_trigger LOOP EXECUTE format('DROP EVENT TRIGGER %I', r.evtname); END LOOP;
		FOR r IN SELECT pubname FROM pg_publication LOOP EXECUTE format('DROP PUBLICATION %I', r.pubname); END LOOP;
	END$$;`)
	// One simple-protocol round trip for the whole reset.
	if _, err := conn.Exec(ctx, b.String(), pgx.QueryExecModeSimpleProtocol); err != nil {
		return fmt.Errorf("reset database %s: %w", db, err)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TerminateSessions ends every other session in the current database and
// waits until they are gone, so that nothing an attempt left behind (locks,
// open transactions) reaches the next one.
func TerminateSessions(ctx context.Context, conn *pgx.Conn, keep ...uint32) error {
	const q = `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid() AND pid <> ALL($1::int4[])`
	spare := make([]int32, len(keep))
	for i, k := range keep {
		spare[i] = int32(k)
	}
	start := time.Now()
	for i := 0; ; i++ {
		var n int
		if err := conn.QueryRow(ctx, q, spare).Scan(&n); err != nil {
			return fmt.Errorf("terminate sessions: %w", err)
		}
		if n == 0 {
			return nil
		}
		if time.Since(start) > 10*time.Second {
			return fmt.Errorf("%d sessions in the attempt's database did not end within 10s of being terminated", n)
		}
		// A session whose client has just closed usually ends within a
		// millisecond; poll finely at first.
		time.Sleep(min(time.Duration(i+1)*100*time.Microsecond, 2*time.Millisecond))
	}
}

package pgserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave/supervise"
)

func TestLocalLifecycleAndReset(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := StartLocal(ctx, LocalOptions{})
	if err != nil {
		t.Fatalf("StartLocal: %v", err)
	}
	root, pid := srv.Root(), srv.Pid()
	t.Cleanup(func() { _ = srv.Close() })

	db, err := srv.CreateDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !IsOwnedName(db) {
		t.Fatalf("database name %q does not have Interleave's form", db)
	}
	conn, err := pgx.Connect(ctx, srv.ConnString(db))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Snapshot(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	mustExec := func(sql string) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	mustExec(`CREATE TABLE t (id serial PRIMARY KEY, v int)`)
	mustExec(`INSERT INTO t (v) VALUES (1), (2)`)
	mustExec(`CREATE SCHEMA other`)
	mustExec(`CREATE TABLE other.x (a int)`)
	mustExec(`SELECT lo_create(0)`)
	other, err := pgx.Connect(ctx, srv.ConnString(db))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Exec(ctx, `BEGIN; LOCK TABLE t IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}

	if err := ResetDatabase(ctx, conn, db, p); err != nil {
		t.Fatalf("reset: %v", err)
	}
	var tables, schemas, los int
	if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname IN ('public','other')),
		(SELECT count(*) FROM pg_namespace WHERE nspname = 'other'), (SELECT count(*) FROM pg_largeobject_metadata)`).Scan(&tables, &schemas, &los); err != nil {
		t.Fatal(err)
	}
	if tables != 0 || schemas != 0 || los != 0 {
		t.Fatalf("after reset: %d relations, %d schema other, %d large objects; want none", tables, schemas, los)
	}
	mustExec(`CREATE TABLE t (id serial PRIMARY KEY, v int)`) // public is usable again
	if err := other.Ping(ctx); err == nil {
		t.Fatal("the session holding a lock survived the reset")
	}
	if err := ResetDatabase(ctx, conn, "postgres", p); err == nil {
		t.Fatal("ResetDatabase accepted a database Interleave did not create")
	}
	if err := srv.DropDatabase(ctx, "postgres"); err == nil {
		t.Fatal("DropDatabase accepted a database Interleave did not create")
	}
	conn.Close(ctx)
	if err := srv.DropDatabase(ctx, db); err != nil {
		t.Fatal(err)
	}

	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Fatalf("temporary directory %s still exists after Close (%v)", root, err)
	}
	if supervise.Alive(pid) {
		t.Fatalf("postmaster %d still running after Close", pid)
	}
}

// As root the server runs as an unprivileged account; binaries below a
// directory only root can enter (such as /root/.cache) get an error that says
// so and what to do, not a bare "permission denied".
func TestUnreachableBinariesAreExplainedWhenRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root hands the server to another account; nothing to check as an ordinary user")
	}
	real, err := FindBinDir("")
	if err != nil {
		t.Fatalf("these tests need PostgreSQL's server binaries: %v", err)
	}
	private := filepath.Join(t.TempDir(), "private")
	if err := os.MkdirAll(filepath.Join(private, "bin"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Dir(private), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"initdb", "postgres", "pg_ctl"} {
		if err := os.Symlink(filepath.Join(real, name), filepath.Join(private, "bin", name)); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv, err := StartLocal(ctx, LocalOptions{BinDir: filepath.Join(private, "bin")})
	if err == nil {
		_ = srv.Close()
		t.Fatal("StartLocal succeeded with binaries the server account cannot reach")
	}
	for _, want := range []string{"cannot be run by uid", "every user can reach"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pginterleave/interleave/pgserver"
)

// nodePgVersion is the node-postgres release the test installs (the one
// examples/polyglot pins).
const nodePgVersion = "8.23.1"

// nodeApp is an ordinary node-postgres application: a parameterised query
// (extended protocol), a simple one, a transaction and a failing statement.
const nodeApp = `const { Client } = require('pg');
(async () => {
  const c = new Client({ connectionString: process.argv[2] });
  await c.connect();
  await c.query('CREATE TEMP TABLE seats (id int PRIMARY KEY, holder text)');
  await c.query('BEGIN');
  await c.query('INSERT INTO seats VALUES ($1, $2)', [1, 'ada']);
  await c.query('INSERT INTO seats VALUES ($1, $2)', [2, 'grace']);
  await c.query('COMMIT');
  const r = await c.query('SELECT holder FROM seats WHERE id = $1', [2]);
  if (r.rows[0].holder !== 'grace') throw new Error('wrong row');
  try { await c.query('INSERT INTO seats VALUES ($1, $2)', [1, 'again']); throw new Error('duplicate accepted'); }
  catch (e) { if (e.code !== '23505') throw e; }
  await c.end();
})().catch((e) => { console.error(e); process.exit(1); });
`

// nodeModules installs node-postgres once into a directory kept between
// runs and returns it.
func nodeModules(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("this test needs %s (Debian: nodejs, npm; scripts/ensure-deps node)", tool)
		}
	}
	dir := filepath.Join(os.TempDir(), "interleave-proxy-test-node-pg-"+nodePgVersion)
	if fileExists(filepath.Join(dir, "node_modules", "pg", "package.json")) {
		return dir
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--no-save", "--loglevel=error", "pg@"+nodePgVersion)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install pg@%s failed (the npm registry must be reachable): %v\n%s", nodePgVersion, err, out)
	}
	return dir
}

// TestProxyRecordsNodePostgres records a node-postgres application through
// `interleave proxy` and reads its trace.
func TestProxyRecordsNodePostgres(t *testing.T) {
	dir := nodeModules(t)
	app := filepath.Join(dir, "app.js")
	if err := os.WriteFile(app, []byte(nodeApp), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, pgserver.LocalOptions{Auth: "scram-sha-256"})
	pw := srv.Password()
	pt, file, _ := recordApp(t, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", srv.Port()), nil, func(addr string) error {
		cmd := exec.Command("node", app, fmt.Sprintf("postgres://postgres:%s@%s/postgres", pw, addr))
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("node: %v\n%s", err, out)
		}
		return nil
	})
	var sessions int
	for _, s := range pt.Summary {
		if s.Statements == 0 {
			continue
		}
		sessions++
		want := map[string]int{"CREATE": 1, "BEGIN": 1, "INSERT": 3, "COMMIT": 1, "SELECT": 1}
		if fmt.Sprint(s.StatementKinds) != fmt.Sprint(want) {
			t.Errorf("statements %v, want %v", s.StatementKinds, want)
		}
		if got := strings.Join(s.Protocol, "+"); got != "simple+extended" {
			t.Errorf("protocol %s, want simple+extended", got)
		}
		if s.Errors != 1 || s.RoundTrips != 7 {
			t.Errorf("errors %d, round trips %d; want 1 and 7 (one per statement)", s.Errors, s.RoundTrips)
		}
	}
	if sessions != 1 {
		t.Fatalf("%d connections sent statements, want 1", sessions)
	}
	var text bytes.Buffer
	if err := pt.WriteText(&text, file); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"application_name", "sql: INSERT INTO seats VALUES ($1, $2)", `params ["1", "ada"]`, "ERROR 23505", "[redacted: "} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the trace lacks %q:\n%s", want, text.String())
		}
	}
	if b, _ := os.ReadFile(file); bytes.Contains(b, []byte(pw)) {
		t.Error("the capture file contains the password")
	}
}

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/pgserver"
)

// TestSecretsAppearInNoOutput (issue 19 item 7): the server's password
// sent as a Bind parameter, a configured secret in SQL text and in the
// server's error about it, and PASSWORD literals (ALTER ROLE in an actor,
// CREATE ROLE in setup) appear in none of the artifact, the report, trace's
// text, --json and --spec, and the pcapng; the trace still names every
// unit, the masked SQL shows where a secret was.
func TestSecretsAppearInNoOutput(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	srv, err := pgserver.StartLocal(ctx, pgserver.LocalOptions{Auth: "scram-sha-256"})
	if err != nil {
		t.Fatalf("PostgreSQL is needed for this test: %v", err)
	}
	defer srv.Close()
	password := srv.Password()
	const configured, actorLit, setupLit = "Configured-Secret-42", "ActorLiteral-777", "SetupLiteral-555"
	secrets := []string{password, configured, actorLit, setupLit}
	if password == "" {
		t.Fatal("the server has no password")
	}
	alice := func(ctx context.Context, cs string) (any, error) {
		c, err := pgx.Connect(ctx, cs)
		if err != nil {
			return nil, err
		}
		defer c.Close(ctx)
		u, _ := url.Parse(cs)
		p, _ := u.User.Password()
		var echo string
		if err := c.QueryRow(ctx, "SELECT $1::text", p).Scan(&echo); err != nil { // Bind parameter
			return nil, err
		}
		if _, err := c.Exec(ctx, "ALTER ROLE secrets_app PASSWORD '"+actorLit+"'"); err != nil {
			return nil, err
		}
		_, err = c.Exec(ctx, "SELECT '"+configured+"'::int", pgx.QueryExecModeSimpleProtocol) // an error that quotes it
		return "done", err
	}
	sc := interleave.Scenario{
		Name: "secrets",
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, "DROP ROLE IF EXISTS secrets_app; CREATE ROLE secrets_app LOGIN PASSWORD '"+setupLit+"'")
			return err
		},
		Actors:            []interleave.Actor{{Name: "alice", Run: alice}, {Name: "bob", Run: func(context.Context, string) (any, error) { return nil, nil }}},
		HandleActorErrors: true,
		Invariant: func(ctx context.Context, db *pgx.Conn, results []interleave.ActorResult) error {
			return fmt.Errorf("always fails; alice: %v", results[0].Err)
		},
	}
	o := interleave.Options{Server: interleave.ServerOptions{Use: srv}}
	o.Capture.Secrets = []string{configured}
	o.Search.Workers = 1
	res, err := interleave.RunOnce(ctx, sc, o)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Outcome.Failed() || res.Artifact == nil || res.Artifact.Capture == nil {
		t.Fatalf("outcome %s, artifact with a capture: %v", res.Outcome, res.Artifact != nil)
	}
	dir := t.TempDir()
	art := filepath.Join(dir, "f.json")
	enc, err := artifact.Encode(res.Artifact)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(art, enc, 0o600); err != nil {
		t.Fatal(err)
	}
	html, pcap := filepath.Join(dir, "r.html"), filepath.Join(dir, "c.pcapng")
	execute(t, reportCommand(), art, "--out", html)
	execute(t, traceCommand(), art, "--pcap", pcap)
	outputs := map[string][]byte{
		"the artifact":   enc,
		"the message":    []byte(res.Message),
		"trace":          []byte(execute(t, traceCommand(), art)),
		"trace --json":   []byte(execute(t, traceCommand(), art, "--json")),
		"trace --spec":   []byte(execute(t, traceCommand(), art, "--spec")),
		"the report":     readFile(t, html),
		"the pcapng":     readFile(t, pcap),
		"the capture":    rawCapture(t, res.Artifact),
		"the units' SQL": []byte(fmt.Sprint(res.Artifact.Units)),
	}
	for what, out := range outputs {
		for _, s := range secrets {
			if bytes.Contains(out, []byte(s)) {
				t.Errorf("%s holds the secret %q", what, s)
			}
		}
	}
	text := string(outputs["trace"])
	for _, want := range []string{"PASSWORD '" + strings.Repeat("*", len(actorLit)) + "'", "'" + strings.Repeat("*", len(configured)) + "'::int"} {
		if !strings.Contains(text, want) {
			t.Errorf("the trace does not show %q where the secret was:\n%s", want, text)
		}
	}
	if strings.Contains(text, "hashes to") || strings.Contains(text, "not found") {
		t.Errorf("the trace lost a masked unit:\n%s", text)
	}
}

// TestSecretsAppearInNoBundle: a scenario file whose setup creates a role
// with a PASSWORD literal and whose actor sets another and quotes it into
// a server error: neither is in the artifact, the trace or any file of the
// export bundle but the scenario file itself, which the bundle keeps byte
// for byte (replay checks it).
func TestSecretsAppearInNoBundle(t *testing.T) {
	if _, err := exec.LookPath("psql"); err != nil {
		t.Fatal("psql is needed for this test (the actors run it): install PostgreSQL's client")
	}
	bin := filepath.Join(t.TempDir(), "interleave")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	// envToken is configured by name (--secret-env APP_TOKEN) and reaches
	// the server in bob's SQL text.
	const setupLit, actorLit, envToken = "SetupLiteral-555", "ActorLiteral-777", "EnvToken-31337"
	dir := t.TempDir()
	scenario := filepath.Join(dir, "s.yaml")
	yaml := `name: secrets
setup:
  sql: |
    CREATE TABLE counter (id int PRIMARY KEY, n int NOT NULL);
    INSERT INTO counter VALUES (1, 0);
    DROP ROLE IF EXISTS secrets_app;
    CREATE ROLE secrets_app LOGIN PASSWORD '` + setupLit + `';
actors:
  - name: alice
    command:
      - sh
      - -c
      - |
        psql -Xq -c "ALTER ROLE secrets_app PASSWORD '` + actorLit + `'"
        psql -Xq -c "ALTER ROLE secrets_app PASSWORD '` + actorLit + `' x" 2>&1
        true
  - name: bob
    command: [sh, -c, 'psql -XAt -c "SELECT n FROM counter WHERE length(''$APP_TOKEN'') > 0"']
invariant:
  sql:
    - query: SELECT n FROM counter WHERE id = 1
      expect: [["2"]]
      message: fails on purpose
`
	if err := os.WriteFile(scenario, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "TEST_DATABASE_URL=", "APP_TOKEN="+envToken)
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	art, bundle := filepath.Join(dir, "f.json"), filepath.Join(dir, "bundle")
	out := run("run", scenario, "--workers", "1", "--secret-env", "APP_TOKEN", "--out", art)
	if _, err := os.Stat(art); err != nil {
		t.Fatalf("no artifact: %v\n%s", err, out)
	}
	out += run("trace", art) + run("trace", art, "--spec") + run("report", art, "--out", filepath.Join(dir, "r.html"))
	out += run("export", scenario, art, "--out", bundle)
	if !strings.Contains(out, "ALTER ROLE secrets_app PASSWORD '"+strings.Repeat("*", len(actorLit))+"'") {
		t.Errorf("the trace does not show the masked literal:\n%s", out)
	}
	if !strings.Contains(out, "length('"+strings.Repeat("*", len(envToken))+"')") {
		t.Errorf("the trace does not show the masked --secret-env value:\n%s", out)
	}
	if o := run("run", scenario, "--secret-env", "INTERLEAVE_TEST_UNSET_SECRET"); !strings.Contains(o, "INTERLEAVE_TEST_UNSET_SECRET is not set") {
		t.Errorf("--secret-env of an unset variable:\n%s", o)
	}
	files := 0
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || p == bin || filepath.Base(p) == "interleave" {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		if filepath.Base(p) == "s.yaml" {
			if !bytes.Equal(b, []byte(yaml)) {
				t.Errorf("%s is not the scenario byte for byte", p)
			}
			return nil
		}
		for _, s := range []string{setupLit, actorLit, envToken} {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds the secret %q", p, s)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(bundle, "artifact.json")); err != nil || files < 6 {
		t.Fatalf("the bundle was not written (%d files looked at): %v\n%s", files, err, out)
	}
	for _, s := range []string{setupLit, actorLit, envToken} {
		if strings.Contains(out, s) {
			t.Errorf("the commands' output holds the secret %q:\n%s", s, out)
		}
	}
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rawCapture is the artifact's capture, decompressed.
func rawCapture(t *testing.T, a *artifact.Artifact) []byte {
	t.Helper()
	raw, err := a.Capture.Bytes()
	if err != nil {
		t.Fatal(errors.Join(errors.New("decode the capture"), err))
	}
	return raw
}

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave/capture"
	"github.com/pginterleave/interleave/pgserver"
)

// recordApp runs app through `interleave proxy --capture` (plus extra
// flags), stops the proxy with Ctrl+C and returns the decoded capture, the
// capture file's path and the proxy's output.
func recordApp(t *testing.T, upstream string, extra []string, app func(proxyAddr string) error) (*capture.ProxyTrace, string, string) {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "app.capture")
	rp := startProxyCommand(t, append([]string{"--upstream", upstream, "--capture", file, "--pcap", filepath.Join(dir, "app.pcapng")}, extra...)...)
	if err := app(rp.addr); err != nil {
		t.Fatalf("the application through the proxy: %v\n%s", err, rp.output())
	}
	if code := rp.stop(t, syscall.SIGINT); code != 130 {
		t.Fatalf("interleave proxy exited %d after Ctrl+C, want 130:\n%s", code, rp.output())
	}
	pt, _, err := capture.TraceProxyFile(file)
	if err != nil {
		t.Fatalf("%v\n%s", err, rp.output())
	}
	return pt, file, rp.output()
}

// pgxApp is an ordinary pgx application: a prepared query, a simple one, a
// batch (pipelined), COPY and a failing statement.
func pgxApp(url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE TEMP TABLE items (id int PRIMARY KEY, name text)", pgx.QueryExecModeSimpleProtocol); err != nil {
		return err
	}
	if _, err := c.CopyFrom(ctx, pgx.Identifier{"items"}, []string{"id", "name"}, pgx.CopyFromRows([][]any{{1, "one"}, {2, "two"}})); err != nil {
		return err
	}
	var name string
	if err := c.QueryRow(ctx, "SELECT name FROM items WHERE id = $1", 2).Scan(&name); err != nil || name != "two" {
		return fmt.Errorf("select: %q %v", name, err)
	}
	b := &pgx.Batch{}
	b.Queue("INSERT INTO items VALUES ($1, $2)", 3, "three")
	b.Queue("UPDATE items SET name = upper(name) WHERE id = $1", 1)
	if err := c.SendBatch(ctx, b).Close(); err != nil {
		return err
	}
	if _, err := c.Exec(ctx, "INSERT INTO items VALUES (1, 'again')"); err == nil {
		return fmt.Errorf("a duplicate key was accepted")
	}
	return nil
}

// TestProxyRecordsPgxOverSCRAMAndTLS records a pgx application that
// authenticates with SCRAM through the proxy, which reaches the server over
// TLS. The password (in the upstream URL and in the application's) is in
// no output and no file; the trace shows every statement, the summary the
// protocols, and tshark reads the pcapng.
func TestProxyRecordsPgxOverSCRAMAndTLS(t *testing.T) {
	srv := startServer(t, pgserver.LocalOptions{Auth: "scram-sha-256", TLS: true})
	pw := srv.Password()
	upstream := fmt.Sprintf("postgres://postgres:%s@127.0.0.1:%d/postgres", pw, srv.Port())
	pt, file, out := recordApp(t, upstream, []string{"--upstream-tls", "--upstream-ca", srv.CAFile()}, func(addr string) error {
		return pgxApp(fmt.Sprintf("postgres://postgres:%s@%s/postgres?sslmode=disable", pw, addr))
	})
	if !strings.Contains(out, "over TLS") || pt.Header.UpstreamTLS != true {
		t.Errorf("the proxy did not say it reaches the server over TLS:\n%s", out)
	}
	for _, f := range []string{file, strings.TrimSuffix(file, ".capture") + ".pcapng"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(pw)) {
			t.Errorf("%s contains the password", f)
		}
	}
	if strings.Contains(out, pw) {
		t.Errorf("the proxy printed the password:\n%s", out)
	}
	var sessions []capture.ConnSummary
	for _, s := range pt.Summary {
		if s.Statements > 0 {
			sessions = append(sessions, s)
		}
	}
	if len(sessions) != 1 {
		t.Fatalf("%d connections sent statements, want 1: %+v", len(sessions), pt.Summary)
	}
	s := sessions[0]
	if got := strings.Join(s.Protocol, "+"); got != "simple+extended+pipeline+copy" {
		t.Errorf("protocol %s, want simple+extended+pipeline+copy", got)
	}
	if s.Errors != 1 || s.StatementKinds["INSERT"] != 2 || s.StatementKinds["UPDATE"] != 1 || s.StatementKinds["COPY"] != 1 {
		t.Errorf("summary %+v", s)
	}
	if s.ServerUS <= 0 || s.ClientUS <= 0 || s.RoundTrips < 5 {
		t.Errorf("round trips %d, server %dµs, client %dµs", s.RoundTrips, s.ServerUS, s.ClientUS)
	}
	var text bytes.Buffer
	if err := pt.WriteText(&text, file); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"SASLInitialResponse", "[redacted: ", "sql: SELECT name FROM items WHERE id = $1", "ERROR 23505", "CopyData", "simple+extended+pipeline+copy"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the trace lacks %q", want)
		}
	}
	tsharkReads(t, strings.TrimSuffix(file, ".capture")+".pcapng", []string{"SELECT name FROM items WHERE id = $1", "INSERT INTO items VALUES (1, 'again')"})
}

// TestProxyPassesMD5Through: md5 authentication works through the proxy
// and only its redacted marker is recorded.
func TestProxyPassesMD5Through(t *testing.T) {
	srv := startServer(t, pgserver.LocalOptions{Auth: "md5"})
	pw := srv.Password()
	pt, file, _ := recordApp(t, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", srv.Port()), nil, func(addr string) error {
		ctx := context.Background()
		c, err := pgx.Connect(ctx, fmt.Sprintf("postgres://postgres:%s@%s/postgres?sslmode=disable", pw, addr))
		if err != nil {
			return err
		}
		defer c.Close(ctx)
		_, err = c.Exec(ctx, "SELECT 1")
		return err
	})
	b, _ := os.ReadFile(file)
	if bytes.Contains(b, []byte(pw)) {
		t.Error("the capture file contains the password")
	}
	var text bytes.Buffer
	pt.WriteText(&text, file)
	if !strings.Contains(text.String(), "AuthenticationMD5Password") || !strings.Contains(text.String(), "PasswordMessage") || !strings.Contains(text.String(), "[redacted: ") {
		t.Errorf("the trace does not show md5 authentication redacted:\n%s", text.String())
	}
}

// tsharkReads has tshark dissect the pcapng and find every statement in
// want. Without tshark the test is skipped, except in CI (CI=true), where
// it fails.
func tsharkReads(t *testing.T, pcap string, want []string) {
	t.Helper()
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tshark is missing, and CI must check the pcapng with it (apt-get install tshark; scripts/ensure-deps tshark)")
		}
		t.Skip("tshark is not installed (apt-get install tshark): the pcapng is not checked")
	}
	out, err := exec.Command(tshark, "-r", pcap, "-d", "tcp.port==5432,pgsql", "-Y", "pgsql", "-T", "fields", "-e", "pgsql.query").Output()
	if err != nil {
		t.Fatalf("tshark: %v", err)
	}
	for _, w := range want {
		if !strings.Contains(string(out), w) {
			t.Errorf("tshark did not find %q in the pcapng:\n%s", w, out)
		}
	}
	flags, err := exec.Command(tshark, "-r", pcap, "-d", "tcp.port==5432,pgsql", "-Y", "tcp.analysis.flags || _ws.malformed || _ws.expert.severity >= error").Output()
	if err != nil {
		t.Fatalf("tshark: %v", err)
	}
	if s := strings.TrimSpace(string(flags)); s != "" {
		t.Errorf("tshark reports TCP or dissection problems:\n%s", s)
	}
}

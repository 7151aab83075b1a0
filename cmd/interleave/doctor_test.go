package main

import (
	"context"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pginterleave/interleave/pgserver"
)

// doctor against a dedicated server given by URL (a managed server with
// TLS, reached over TCP as a remote one would be): the checks pass in
// plain and, with its CA, over TLS; without the CA the TLS check fails
// and says what to do.
func TestDoctorDedicatedServer(t *testing.T) {
	bin := interleaveBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv, err := pgserver.StartLocal(ctx, pgserver.LocalOptions{TLS: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	u := url.URL{Scheme: "postgres", User: url.UserPassword(srv.User(), srv.Password()), Host: "127.0.0.1:" + strconv.Itoa(srv.Port()), Path: "/postgres", RawQuery: "sslmode=prefer"}
	dbURL := u.String()
	tmp := t.TempDir()

	r := runIn(t, tmp, nil, bin, "doctor", "--database-url", dbURL)
	for _, want := range []string{"OK    server: dedicated test server", "OK    database: created interleave_", "OK    proxy-round-trip: a query went through a gated proxy",
		"OK    lock-wait: session", "pg_isolation_test_session_is_blocked", "OK    cleanup: every database doctor created on it was dropped"} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Fatalf("doctor --database-url: want exit 0 and %q: %s", want, r)
		}
	}
	if p := srv.Password(); p != "" && strings.Contains(r.stdout+r.stderr, p) {
		t.Fatalf("doctor printed the password: %s", r)
	}

	r = runIn(t, tmp, nil, bin, "doctor", "--database-url", dbURL, "--upstream-tls", "--upstream-ca", srv.CAFile(), "--json")
	if r.code != 0 || !strings.Contains(r.stdout, `"name": "upstream-tls",
      "status": "ok"`) {
		t.Fatalf("doctor --upstream-tls --upstream-ca: %s", r)
	}
	validate(t, "doctor", r.stdout, "doctor --upstream-tls --json")

	r = runIn(t, tmp, nil, bin, "doctor", "--database-url", dbURL, "--upstream-tls")
	if r.code != 2 || !strings.Contains(r.stdout, "FAIL  upstream-tls: the proxied connection did not complete over TLS") ||
		!strings.Contains(r.stdout, "fix: enable ssl on the server and pass --upstream-ca") {
		t.Fatalf("doctor --upstream-tls without the CA: %s", r)
	}
}

// doctor --docker where no Docker engine answers says so, with a fix, and
// skips what needed the server.
func TestDoctorWithoutDocker(t *testing.T) {
	bin := interleaveBinary(t)
	sock := filepath.Join(t.TempDir(), "docker.sock")
	r := runIn(t, t.TempDir(), []string{"DOCKER_HOST=unix://" + sock}, bin, "doctor", "--docker")
	for _, want := range []string{"FAIL  docker: no Docker engine is reachable at unix://" + sock + " (nothing answers there), so --docker cannot start a server",
		"fix: start a Docker engine", "or drop --docker", "SKIP  lock-wait: no server to check against", "Some checks failed"} {
		if r.code != 2 || !strings.Contains(r.stdout, want) {
			t.Fatalf("doctor --docker: want exit 2 and %q: %s", want, r)
		}
	}
}

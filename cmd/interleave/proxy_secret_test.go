//go:build unix

package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave/pgserver"
)

// TestProxySecretEnvMasksTheCapture: `interleave proxy --secret-env NAME`
// masks the variable's value in what it records, in SQL text and in a Bind
// parameter, so that neither trace nor trace --json shows it; a variable
// that is not set is a usage error.
func TestProxySecretEnvMasksTheCapture(t *testing.T) {
	const token = "ProxyToken-4242"
	t.Setenv("INTERLEAVE_TEST_PROXY_TOKEN", token)
	srv := startServer(t, pgserver.LocalOptions{})
	file := filepath.Join(t.TempDir(), "app.capture")
	rp := startProxyCommand(t, "--upstream", fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres", srv.Port()), "--capture", file, "--secret-env", "INTERLEAVE_TEST_PROXY_TOKEN")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://postgres@127.0.0.1:%s/postgres?sslmode=disable", rp.port()))
	if err != nil {
		t.Fatalf("connect through the proxy: %v\n%s", err, rp.output())
	}
	var a, b string
	if err := conn.QueryRow(ctx, "SELECT '"+token+"', $1::text", token).Scan(&a, &b); err != nil || a != token || b != token {
		t.Fatalf("query through the proxy: %q %q %v", a, b, err)
	}
	conn.Close(ctx)
	if code := rp.stop(t, syscall.SIGTERM); code != 128+int(syscall.SIGTERM) {
		t.Fatalf("interleave proxy exited %d after SIGTERM:\n%s", code, rp.output())
	}
	for _, args := range [][]string{{"trace", file}, {"trace", file, "--json"}} {
		out, err := exec.Command(interleaveBinary(t), args...).CombinedOutput()
		if err != nil {
			t.Fatalf("interleave %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		if strings.Contains(string(out), token) {
			t.Errorf("interleave %s shows the secret:\n%s", strings.Join(args, " "), out)
		}
		if !strings.Contains(string(out), strings.Repeat("*", len(token))) {
			t.Errorf("interleave %s shows no masked value:\n%s", strings.Join(args, " "), out)
		}
	}
	out, _ := exec.Command(interleaveBinary(t), "proxy", "--upstream", "postgres://127.0.0.1:1/x", "--secret-env", "INTERLEAVE_TEST_UNSET_SECRET").CombinedOutput()
	if !strings.Contains(string(out), "INTERLEAVE_TEST_UNSET_SECRET is not set") {
		t.Errorf("--secret-env of an unset variable:\n%s", out)
	}
}

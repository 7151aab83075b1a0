package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pginterleave/interleave/capture"
	"github.com/pginterleave/interleave/pgserver"
)

// runningProxy is an `interleave proxy` process.
type runningProxy struct {
	cmd    *exec.Cmd
	addr   string // host:port it listens on
	mu     sync.Mutex
	stderr strings.Builder
	ended  chan struct{}
}

var listeningLine = regexp.MustCompile(`listening on (\S+), forwarding`)

// startProxyCommand runs the real binary with args (--listen 127.0.0.1:0
// added) and waits until it listens.
func startProxyCommand(t *testing.T, args ...string) *runningProxy {
	t.Helper()
	cmd := exec.Command(interleaveBinary(t), append([]string{"proxy", "--listen", "127.0.0.1:0"}, args...)...)
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	rp := &runningProxy{cmd: cmd, ended: make(chan struct{})}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			rp.mu.Lock()
			rp.stderr.WriteString(sc.Text() + "\n")
			rp.mu.Unlock()
			if m := listeningLine.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
		io.Copy(io.Discard, errPipe)
		cmd.Wait()
		close(rp.ended)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-rp.ended
	})
	select {
	case rp.addr = <-addr:
	case <-rp.ended:
		t.Fatalf("interleave proxy ended before listening:\n%s", rp.output())
	case <-time.After(60 * time.Second):
		t.Fatalf("interleave proxy did not listen within a minute:\n%s", rp.output())
	}
	return rp
}

func (rp *runningProxy) output() string {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return rp.stderr.String()
}

func (rp *runningProxy) port() string {
	_, port, _ := strings.Cut(rp.addr, ":")
	return port
}

// stop sends sig and returns the exit code once the proxy has written its
// files.
func (rp *runningProxy) stop(t *testing.T, sig syscall.Signal) int {
	t.Helper()
	rp.cmd.Process.Signal(sig)
	select {
	case <-rp.ended:
	case <-time.After(2 * time.Minute):
		t.Fatalf("interleave proxy did not stop on %v:\n%s", sig, rp.output())
	}
	return rp.cmd.ProcessState.ExitCode()
}

// startServer starts a throwaway PostgreSQL for one test.
func startServer(t *testing.T, opts pgserver.LocalOptions) *pgserver.Local {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if opts.MaxConnections == 0 {
		opts.MaxConnections = 60
	}
	srv, err := pgserver.StartLocal(ctx, opts)
	if err != nil {
		t.Fatalf("these tests need PostgreSQL's server binaries: %v", err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// findPgbench looks for PostgreSQL's pgbench on PATH and beside the
// server's binaries.
func findPgbench(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("pgbench"); err == nil {
		return p
	}
	if dir, err := pgserver.FindBinDir(""); err == nil {
		if p := filepath.Join(dir, "pgbench"); fileExists(p) {
			return p
		}
	}
	t.Fatal("this test needs PostgreSQL's pgbench (Debian: postgresql-client or postgresql-contrib)")
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// tpcbScript is pgbench's built-in TPC-B-like transaction, written out so
// that the test knows every statement it sends.
const tpcbScript = `\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`

var processed = regexp.MustCompile(`number of transactions actually processed: (\d+)/(\d+)`)

// TestProxyRecordsPgbench runs pgbench with 8 clients through `interleave
// proxy --capture` and checks that the capture decodes to exactly the
// statements pgbench reports: its transactions times the script's
// statements, per statement kind, and nothing else.
func TestProxyRecordsPgbench(t *testing.T) {
	pgbench := findPgbench(t)
	srv := startServer(t, pgserver.LocalOptions{})
	dir := t.TempDir()
	env := append(os.Environ(), "PGUSER=postgres", "PGDATABASE=postgres", "PGHOST=127.0.0.1", "PGSSLMODE=disable")
	init := exec.Command(pgbench, "-i", "-q", "-s", "1", "-p", strconv.Itoa(srv.Port()))
	init.Env = env
	if out, err := init.CombinedOutput(); err != nil {
		t.Fatalf("pgbench -i: %v\n%s", err, out)
	}
	script := filepath.Join(dir, "tpcb.sql")
	if err := os.WriteFile(script, []byte(tpcbScript), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "pgbench.capture")
	for _, mode := range []string{"prepared", "simple"} {
		t.Run(mode, func(t *testing.T) {
			os.Remove(file)
			rp := startProxyCommand(t, "--upstream", fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres", srv.Port()), "--capture", file)
			run := exec.Command(pgbench, "-n", "-c", "8", "-j", "2", "-t", "25", "-M", mode, "-f", script, "-p", rp.port())
			run.Env = env
			out, err := run.CombinedOutput()
			if err != nil {
				t.Fatalf("pgbench through the proxy: %v\n%s", err, out)
			}
			m := processed.FindStringSubmatch(string(out))
			if m == nil || m[1] != m[2] {
				t.Fatalf("pgbench did not process every transaction:\n%s", out)
			}
			txns, _ := strconv.Atoi(m[1])
			if code := rp.stop(t, syscall.SIGTERM); code != 128+int(syscall.SIGTERM) {
				t.Fatalf("interleave proxy exited %d after SIGTERM, want %d:\n%s", code, 128+int(syscall.SIGTERM), rp.output())
			}
			pt, _, err := capture.TraceProxyFile(file)
			if err != nil {
				t.Fatalf("%v\n%s", err, rp.output())
			}
			want := map[string]int{"BEGIN": txns, "UPDATE": 3 * txns, "SELECT": txns, "INSERT": txns, "END": txns}
			got := map[string]int{}
			sessions := 0
			for _, s := range pt.Summary {
				for k, n := range s.StatementKinds {
					got[k] += n
				}
				if s.Statements > 0 {
					sessions++
					if s.Errors != 0 || s.RoundTrips < s.Statements {
						t.Errorf("connection #%d: %d errors, %d round trips for %d statements", s.Conn, s.Errors, s.RoundTrips, s.Statements)
					}
					wantProto := "extended"
					if mode == "simple" {
						wantProto = "simple"
					}
					if strings.Join(s.Protocol, "+") != wantProto {
						t.Errorf("connection #%d: protocol %v, want %s", s.Conn, s.Protocol, wantProto)
					}
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("statements in the capture, by kind: %v; pgbench processed %d transactions of 7 statements: %v", got, txns, want)
			}
			if sessions != 8 {
				t.Errorf("%d connections sent statements, want pgbench's 8 clients", sessions)
			}
			if pt.Header.Dropped != nil || pt.Header.Streams < 8 {
				t.Errorf("header: %+v", pt.Header)
			}
		})
	}
}

func TestUpstreamEndpoint(t *testing.T) {
	for _, tc := range []struct {
		url     string
		flagTLS bool
		network string
		address string
		tls     bool
	}{
		{"postgres://u:secret@db.example:6000/app", false, "tcp", "db.example:6000", false},
		{"postgres://u@127.0.0.1/app?sslmode=prefer", false, "tcp", "127.0.0.1:5432", false},
		{"postgres://u@127.0.0.1/app?sslmode=require", false, "tcp", "127.0.0.1:5432", true},
		{"postgres://u@127.0.0.1/app?sslmode=verify-full", false, "tcp", "127.0.0.1:5432", true},
		{"postgres://u@127.0.0.1:5433/app", true, "tcp", "127.0.0.1:5433", true},
		{"postgres:///app?host=/run/postgresql&port=5433&sslmode=disable", false, "unix", "/run/postgresql/.s.PGSQL.5433", false},
	} {
		ep, err := upstreamEndpoint(proxyOptions{upstream: tc.url, upstreamTLS: tc.flagTLS})
		if err != nil {
			t.Errorf("%s: %v", tc.url, err)
			continue
		}
		if ep.Network != tc.network || ep.Address != tc.address || (ep.TLS != nil) != tc.tls {
			t.Errorf("%s: %s %s TLS %v; want %s %s TLS %v", tc.url, ep.Network, ep.Address, ep.TLS != nil, tc.network, tc.address, tc.tls)
		}
	}
	if _, err := upstreamEndpoint(proxyOptions{upstream: "postgres://u:hunter2@host:notaport/db"}); err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("a bad URL: %v (it must fail without printing the password)", err)
	}
	if _, err := upstreamEndpoint(proxyOptions{upstream: "postgres:///app?host=/run/postgresql", upstreamTLS: true}); err == nil {
		t.Error("TLS to a Unix socket was accepted")
	}
	for s, want := range map[string]int64{"256MiB": 256 << 20, "1GiB": 1 << 30, "64KiB": 64 << 10, "1000": 1000, "1.5MB": 1500000} {
		if got, err := parseByteSize(s); err != nil || got != want {
			t.Errorf("parseByteSize(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "-1MiB", "lots", "2GiB"} {
		if _, err := parseByteSize(s); err == nil {
			t.Errorf("parseByteSize(%q) accepted", s)
		}
	}
}

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave/pgserver"
)

// TestProxyJSON: `interleave proxy --json` is accepted, as by every other
// command (issue 20 item 5), and prints on stdout, when it stops, what it
// recorded: one connection through it, the capture file written.
func TestProxyJSON(t *testing.T) {
	srv := startServer(t, pgserver.LocalOptions{})
	file := filepath.Join(t.TempDir(), "app.capture")
	cmd := exec.Command(interleaveBinary(t), "proxy", "--listen", "127.0.0.1:0", "--json", "--capture", file,
		"--upstream", fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres", srv.Port()))
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	addr := make(chan string, 1)
	var stderr bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			stderr.WriteString(sc.Text() + "\n")
			if m := listeningLine.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
		close(addr)
	}()
	var listen string
	select {
	case listen = <-addr:
	case <-time.After(time.Minute):
		t.Fatal("interleave proxy --json did not listen within a minute")
	}
	if listen == "" {
		cmd.Wait()
		<-done
		t.Fatalf("interleave proxy --json ended:\n%s", stderr.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, "postgres://postgres@"+listen+"/postgres?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "select 1"); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	<-done
	if code := cmd.ProcessState.ExitCode(); code != 128+int(syscall.SIGTERM) {
		t.Fatalf("exit %d after SIGTERM\n%s", code, stderr.String())
	}
	var got ProxyJSON
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout.String())
	}
	if got.SchemaVersion != 1 || got.Listen != listen || got.Capture != file || got.Connections != 1 || got.Size == 0 || got.CompressedSize == 0 {
		t.Fatalf("proxy --json printed %+v", got)
	}
}

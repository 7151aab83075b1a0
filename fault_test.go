//go:build !windows

package interleave_test

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/pgserver"
)

// A postmaster killed during an attempt is reported as the server's fault,
// with its log, not as the error of the actor that saw its connection go.
func TestKilledServerIsNamedAsSuch(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := pgserver.StartLocal(ctx, pgserver.LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	sc := counter(false)
	sc.Actors[0].Run = func(ctx context.Context, cs string) (any, error) {
		c, err := pgx.Connect(ctx, cs)
		if err != nil {
			return nil, err
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "SELECT 1"); err != nil {
			return nil, err
		}
		_ = syscall.Kill(srv.Pid(), syscall.SIGKILL)
		_, err = c.Exec(ctx, "SELECT 1") // the server is gone
		return nil, err
	}
	res, err := interleave.Explore(ctx, sc, interleave.Options{Server: interleave.ServerOptions{Use: srv}, Search: interleave.SearchOptions{Workers: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomeHarnessError || !strings.Contains(res.Message, "PostgreSQL terminated") || strings.Contains(res.Message, "actor alice failed") {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Message)
	}
	if res.ExitCode() != interleave.ExitError {
		t.Fatalf("exit %d, want 2", res.ExitCode())
	}
}

package pgserver

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// A CREATE DATABASE cancelled by its context (a signal as a run starts a
// worker) may complete on the server before the cancel arrives; the run's
// cleanup must drop that database too. The cancellations are spread over
// the time one CREATE DATABASE takes here, so that some land inside it.
func TestCancelledCreateLeavesNoDatabase(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	srv, err := StartLocal(ctx, LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	url := srv.ConnString("postgres")
	count := func() int {
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		var n int
		if err := c.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname LIKE 'interleave\\_%'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// How long one CREATE DATABASE takes on this machine now.
	e, err := OpenExternal(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := e.CreateDatabase(ctx); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	cancelled := 0
	for i := 0; i < 24; i++ {
		e, err := OpenExternal(ctx, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		cctx, ccancel := context.WithTimeout(ctx, took*time.Duration(i)/16)
		if _, err := e.CreateDatabase(cctx); err != nil {
			cancelled++
		}
		ccancel()
		if err := e.Close(); err != nil {
			t.Fatalf("close after a cancelled create: %v", err)
		}
		if n := count(); n != 0 {
			t.Fatalf("after create %d (cancelled after %v of a %v CREATE DATABASE), %d interleave_ databases are left", i, took*time.Duration(i)/16, took, n)
		}
	}
	t.Logf("%d of 24 creates were cancelled (one CREATE DATABASE took %v)", cancelled, took)
}

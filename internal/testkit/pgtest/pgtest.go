// Package pgtest starts the managed PostgreSQL a package's tests share.
package pgtest

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/pginterleave/interleave/pgserver"
)

// Main is a package's TestMain when its tests share one managed
// PostgreSQL: it starts the server with opts, sets *server, runs the tests,
// stops the server and exits with the tests' code. It never skips: without
// PostgreSQL's server binaries it exits 2 with what to install (a test run
// without PostgreSQL proves nothing).
func Main(m *testing.M, server **pgserver.Local, opts pgserver.LocalOptions) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	srv, err := pgserver.StartLocal(ctx, opts)
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "these tests need PostgreSQL's server binaries (initdb and postgres: apt-get install -y postgresql, or set INTERLEAVE_PG_BIN): %v\n", err)
		os.Exit(2)
	}
	*server = srv
	code := m.Run()
	srv.Close()
	os.Exit(code)
}

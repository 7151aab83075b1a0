package bench

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/pginterleave/interleave/pgserver"
)

var server *pgserver.Local

func TestMain(m *testing.M) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	srv, err := pgserver.StartLocal(ctx, pgserver.LocalOptions{MaxConnections: 200})
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "benchmarks need PostgreSQL's server binaries: %v\n", err)
		os.Exit(2)
	}
	server = srv
	code := m.Run()
	srv.Close()
	os.Exit(code)
}

package interleave_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"github.com/pginterleave/interleave/pgserver"
)

// server is one managed PostgreSQL shared by the tests of this package.
var server *pgserver.Local

func TestMain(m *testing.M) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	srv, err := pgserver.StartLocal(ctx, pgserver.LocalOptions{})
	cancel()
	if err != nil {
		// Never skip: a test run without PostgreSQL proves nothing.
		fmt.Fprintf(os.Stderr, "these tests need PostgreSQL's server binaries: %v\n", err)
		os.Exit(2)
	}
	server = srv
	code := m.Run()
	srv.Close()
	os.Exit(code)
}

func jsonEncoder(w io.Writer) *json.Encoder { return json.NewEncoder(w) }

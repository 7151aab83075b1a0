package interleave_test

import (
	"encoding/json"
	"io"
	"testing"

	"github.com/pginterleave/interleave/internal/testkit/testenv"
	"github.com/pginterleave/interleave/pgserver"
)

// server is one managed PostgreSQL shared by the tests of this package.
var server *pgserver.Local

func TestMain(m *testing.M) { testenv.MainWithServer(m, &server, pgserver.LocalOptions{}) }

func jsonEncoder(w io.Writer) *json.Encoder { return json.NewEncoder(w) }

package interleave_test

import (
	"encoding/json"
	"io"
	"testing"

	"github.com/pginterleave/interleave/internal/testkit/pgtest"
	"github.com/pginterleave/interleave/pgserver"
)

// server is one managed PostgreSQL shared by the tests of this package.
var server *pgserver.Local

func TestMain(m *testing.M) { pgtest.Main(m, &server, pgserver.LocalOptions{}) }

func jsonEncoder(w io.Writer) *json.Encoder { return json.NewEncoder(w) }

package bench

import (
	"testing"

	"github.com/pginterleave/interleave/internal/testkit/pgtest"
	"github.com/pginterleave/interleave/pgserver"
)

var server *pgserver.Local

func TestMain(m *testing.M) {
	pgtest.Main(m, &server, pgserver.LocalOptions{MaxConnections: 200})
}

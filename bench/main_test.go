package bench

import (
	"testing"

	"github.com/pginterleave/interleave/internal/testkit/testenv"
	"github.com/pginterleave/interleave/pgserver"
)

var server *pgserver.Local

func TestMain(m *testing.M) {
	testenv.MainWithServer(m, &server, pgserver.LocalOptions{MaxConnections: 200})
}

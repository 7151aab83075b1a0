package scenario

import (
	"testing"

	"github.com/pginterleave/interleave/interleavetest"
)

// One managed PostgreSQL for every test of the package; never skipped: a
// run without PostgreSQL proves nothing.
func TestMain(m *testing.M) { interleavetest.Main(m) }

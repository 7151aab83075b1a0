package stdlib

import (
	"testing"

	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/examples/drivers/drivertest"
	"github.com/pginterleave/interleave/interleavetest"
)

func TestMain(m *testing.M) { interleavetest.Main(m) }

func TestCouponRace(t *testing.T) {
	drivertest.Race(t, Scenario(false), interleave.Options{})
}

func TestCouponRepaired(t *testing.T) {
	drivertest.Repaired(t, Scenario(true), interleave.Options{})
}

package libpq

import (
	"testing"

	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/examples/drivers/drivertest"
	"github.com/pginterleave/interleave/interleavetest"
)

func TestMain(m *testing.M) { interleavetest.Main(m) }

func TestRegisterRace(t *testing.T) {
	res := drivertest.Race(t, Scenario(false), interleave.Options{})
	dump(t, res)
}

func TestRegisterRepaired(t *testing.T) {
	drivertest.Repaired(t, Scenario(true), interleave.Options{})
}

func TestImportRace(t *testing.T) {
	res := drivertest.Race(t, ImportScenario(false), interleave.Options{})
	dump(t, res)
}

func TestImportRepaired(t *testing.T) {
	drivertest.Repaired(t, ImportScenario(true), interleave.Options{})
}

func dump(t *testing.T, res *interleave.Result) {
	for _, u := range res.Artifact.Units {
		t.Logf("%s/%d/%d %s %q prep=%v rel=%d tags=%v rows=%d copy=%q tx=%s sql=%q params=%v err=%s", u.Actor, u.Conn, u.Unit, u.Protocol, u.Messages, u.Prepare, u.ReleaseStep, u.Tags, u.Rows, u.Copy, u.TxStatus, u.SQL, u.Params, u.Error)
	}
}

package sqlx

import (
	"testing"

	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/examples/drivers/drivertest"
	"github.com/pginterleave/interleave/interleavetest"
)

func TestMain(m *testing.M) { interleavetest.Main(m) }

func TestQueueRace(t *testing.T) {
	res := drivertest.Race(t, Scenario(false), interleave.Options{})
	for _, u := range res.Artifact.Units {
		t.Logf("%s/%d/%d %s %q prep=%v rel=%d tags=%v rows=%d copy=%q tx=%s sql=%q params=%v err=%s waits=%+v", u.Actor, u.Conn, u.Unit, u.Protocol, u.Messages, u.Prepare, u.ReleaseStep, u.Tags, u.Rows, u.Copy, u.TxStatus, u.SQL, u.Params, u.Error, u.LockWaits)
	}
}

func TestQueueRepaired(t *testing.T) {
	drivertest.Repaired(t, Scenario(true), interleave.Options{})
}

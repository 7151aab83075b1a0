package pgxbatch

import (
	"strings"
	"testing"

	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/examples/drivers/drivertest"
	"github.com/pginterleave/interleave/interleavetest"
)

func TestMain(m *testing.M) { interleavetest.Main(m) }

// batches returns actor's executing units (statement preparations apart)
// in the order it sent them.
func batches(a *artifact.Artifact, actor string) []artifact.Unit {
	var out []artifact.Unit
	for _, u := range a.Units {
		if u.Actor == actor && !u.Prepare {
			out = append(out, u)
		}
	}
	return out
}

func TestOversellRace(t *testing.T) {
	res := drivertest.Race(t, Scenario(false), interleave.Options{})
	if !strings.Contains(res.Message, "oversold: 2 orders for 1 item in stock") {
		t.Fatalf("message %q", res.Message)
	}
	a := res.Artifact
	var reads, writes []artifact.Unit
	for _, buyer := range []string{"buyer1", "buyer2"} {
		// Each batch is one release unit: one extended-protocol cycle with a
		// Bind and an Execute per queued statement and a single Sync.
		bs := batches(a, buyer)
		if len(bs) != 2 {
			t.Fatalf("%s has %d executing units; want 2 (the read batch and the write batch)", buyer, len(bs))
		}
		read, write := bs[0], bs[1]
		if read.Protocol != "extended" || read.Messages != "BEBES" || len(read.SQL) != 2 || strings.Join(read.Tags, ",") != "SELECT 1,SELECT 1" {
			t.Errorf("%s's read batch: %s %q %d statements, tags %v; want one cycle BEBES with two SELECTs", buyer, read.Protocol, read.Messages, len(read.SQL), read.Tags)
		}
		if write.Protocol != "extended" || strings.Count(write.Messages, "E") != 3 || strings.Count(write.Messages, "S") != 1 ||
			strings.Join(write.Tags, ",") != "UPDATE 1,INSERT 0 1,SELECT 1" {
			t.Errorf("%s's write batch: %s %q tags %v; want one cycle with three Executes and one Sync (UPDATE, INSERT, SELECT)", buyer, write.Protocol, write.Messages, write.Tags)
		}
		if write.TxStatus != "I" {
			t.Errorf("%s's write batch left status %q; want I (the batch's implicit transaction committed at Sync)", buyer, write.TxStatus)
		}
		reads, writes = append(reads, read), append(writes, write)
	}
	// A batch's statement preparations travel as their own unit (Parse and
	// Describe per new statement, then Sync), released without a choice.
	prepared := false
	for _, u := range a.Units {
		if u.Prepare && u.Messages == "PDPDS" && len(u.SQL) == 2 {
			prepared = true
		}
	}
	if !prepared {
		t.Errorf("no preparation unit PDPDS for a two-statement batch")
	}
	// The race is between batches: both read batches ran before either
	// write batch.
	for _, r := range reads {
		for _, w := range writes {
			if r.ReleaseStep > w.ReleaseStep {
				t.Errorf("%s's read batch (step %d) ran after %s's write batch (step %d)", r.Actor, r.ReleaseStep, w.Actor, w.ReleaseStep)
			}
		}
	}
}

func TestOversellRepaired(t *testing.T) {
	drivertest.Repaired(t, Scenario(true), interleave.Options{})
}

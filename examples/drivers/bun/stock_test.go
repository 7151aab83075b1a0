package bun

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/examples/drivers/drivertest"
	"github.com/pginterleave/interleave/interleavetest"
)

func TestMain(m *testing.M) { interleavetest.Main(m) }

func TestStockRace(t *testing.T) {
	res := drivertest.Race(t, Scenario(false), interleave.Options{})
	a := res.Artifact
	if a == nil {
		t.Fatal("no artifact for the violation")
	}
	t.Logf("units:\n%s", units(a))
	if !strings.Contains(res.Message, "lost update") {
		t.Errorf("failure message = %q, want a lost update", res.Message)
	}
	// pgdriver formats bun's arguments into the text and sends every query
	// as one simple-protocol Query message: no statement preparations.
	for _, u := range a.Units {
		if u.Protocol != "simple" || u.Messages != "Q" || u.Prepare {
			t.Errorf("%s unit %d: protocol %s, messages %q, prepare %v; pgdriver should send simple Query messages only", u.Actor, u.Unit, u.Protocol, u.Messages, u.Prepare)
		}
	}
	if len(a.Connections) != 2 {
		t.Errorf("%d proxied connections, want one per actor", len(a.Connections))
	}
	// The SQL bun generated. Both requests read the stock of 10 before
	// either wrote, so each one's UPDATE writes 10 minus its own order: the
	// second write loses the first.
	const read = `SELECT "product"."id", "product"."name", "product"."qty" FROM "products" AS "product" WHERE (id = 1)`
	firstWrite := -1
	for actor, left := range map[string]int{"alice": 10 - 3, "bob": 10 - 4} {
		write := fmt.Sprintf(`UPDATE "products" AS "product" SET qty = %d WHERE ("product"."id" = 1)`, left)
		w := executed(a, actor, write)
		if w == nil || executed(a, actor, read) == nil {
			t.Fatalf("%s: the read or %q is missing from the artifact", actor, write)
		}
		if firstWrite < 0 || w.ReleaseStep < firstWrite {
			firstWrite = w.ReleaseStep
		}
	}
	for _, actor := range []string{"alice", "bob"} {
		if r := executed(a, actor, read); r.ReleaseStep >= firstWrite || strings.Join(r.Tags, ",") != "SELECT 1" {
			t.Errorf("%s's read: released at step %d (first write at %d), tags %v", actor, r.ReleaseStep, firstWrite, r.Tags)
		}
	}
}

func TestStockRepaired(t *testing.T) {
	drivertest.Repaired(t, Scenario(true), interleave.Options{})
}

// executed is actor's first released unit whose SQL is sql.
func executed(a *artifact.Artifact, actor, sql string) *artifact.Unit {
	for i := range a.Units {
		u := &a.Units[i]
		if u.Actor == actor && u.ReleaseStep >= 0 && len(u.SQL) == 1 && u.SQL[0] == sql {
			return u
		}
	}
	return nil
}

func units(a *artifact.Artifact) string {
	var b strings.Builder
	for _, u := range a.Units {
		fmt.Fprintf(&b, "%s %s %s step %d prepare=%v params=%v tags=%v tx=%s %q\n", u.Actor, u.Protocol, u.Messages, u.ReleaseStep, u.Prepare, u.Params, u.Tags, u.TxStatus, u.SQL)
	}
	return b.String()
}

package gorm

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

func TestTagRace(t *testing.T) {
	res := drivertest.Race(t, Scenario(false), interleave.Options{})
	a := res.Artifact
	if a == nil {
		t.Fatal("no artifact for the violation")
	}
	t.Logf("units:\n%s", units(a))
	if !strings.Contains(res.Message, `the tag "go" has 2 rows`) {
		t.Errorf("failure message = %q, want two rows for the tag", res.Message)
	}
	// The SQL GORM generated for FirstOrCreate: the check, then the insert
	// inside GORM's default transaction; both requests ran both, and both
	// checks found nothing.
	const (
		check  = `SELECT * FROM "tags" WHERE "tags"."name" = $1 ORDER BY "tags"."id" LIMIT $2`
		insert = `INSERT INTO "tags" ("name") VALUES ($1) RETURNING "id"`
	)
	firstInsert := -1
	for _, actor := range []string{"request1", "request2"} {
		c := executed(a, actor, check)
		i := executed(a, actor, insert)
		if c == nil || i == nil {
			t.Fatalf("%s: the check or the insert is missing from the artifact", actor)
		}
		if c.Protocol != "extended" || c.Messages != "BES" || len(c.Params) != 1 || c.Params[0][0].Value() != "go" || strings.Join(c.Tags, ",") != "SELECT 0" {
			t.Errorf("%s's check: %s %s params %v tags %v; want an extended BES finding nothing for \"go\"", actor, c.Protocol, c.Messages, c.Params, c.Tags)
		}
		if i.Protocol != "extended" || i.TxStatus != "T" || strings.Join(i.Tags, ",") != "INSERT 0 1" {
			t.Errorf("%s's insert: %s, tx status %s, tags %v; want an extended insert of one row in a transaction", actor, i.Protocol, i.TxStatus, i.Tags)
		}
		if b := executed(a, actor, "begin"); b == nil || b.Protocol != "simple" || b.ReleaseStep > i.ReleaseStep {
			t.Errorf("%s: no simple-protocol begin before the insert", actor)
		}
		if firstInsert < 0 || i.ReleaseStep < firstInsert {
			firstInsert = i.ReleaseStep
		}
	}
	for _, actor := range []string{"request1", "request2"} {
		if c := executed(a, actor, check); c.ReleaseStep >= firstInsert {
			t.Errorf("%s's check released at step %d, not before the first insert (step %d)", actor, c.ReleaseStep, firstInsert)
		}
	}
}

func TestTagRepaired(t *testing.T) {
	drivertest.Repaired(t, Scenario(true), interleave.Options{})
}

// executed is actor's first released, non-preparing unit whose SQL is sql.
func executed(a *artifact.Artifact, actor, sql string) *artifact.Unit {
	for i := range a.Units {
		u := &a.Units[i]
		if u.Actor == actor && !u.Prepare && u.ReleaseStep >= 0 && len(u.SQL) == 1 && u.SQL[0] == sql {
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

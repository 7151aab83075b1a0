package sqlc

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

func TestSeatRace(t *testing.T) {
	res := drivertest.Race(t, Scenario(false), interleave.Options{})
	if !strings.Contains(res.Message, "sold 2 times") {
		t.Errorf("failure message = %q, want the seat sold twice", res.Message)
	}
	a := res.Artifact
	if a == nil {
		t.Fatal("no artifact for the violation")
	}
	t.Logf("units:\n%s", units(a))
	// Every executed unit is one of sqlc's generated queries, sent by pgx
	// with the extended protocol; sqlc keeps the "-- name:" comment in the
	// text PostgreSQL receives.
	for _, actor := range []string{"alice", "bob"} {
		for _, q := range []string{"GetSeat", "AssignSeat", "CreateBooking"} {
			u := executed(a, actor, "-- name: "+q+" :")
			if u == nil {
				t.Fatalf("%s: no executed unit for sqlc query %s in the artifact:\n%s", actor, q, units(a))
			}
			if u.Protocol != "extended" || !strings.Contains(u.Messages, "E") {
				t.Errorf("%s %s: protocol %s, messages %q; want an extended-protocol execution", actor, q, u.Protocol, u.Messages)
			}
		}
	}
	// The failing order: both reads reach the server before either write.
	firstWrite := -1
	for _, actor := range []string{"alice", "bob"} {
		if s := executed(a, actor, "-- name: AssignSeat :").ReleaseStep; firstWrite < 0 || s < firstWrite {
			firstWrite = s
		}
	}
	for _, actor := range []string{"alice", "bob"} {
		u := executed(a, actor, "-- name: GetSeat :")
		if u.ReleaseStep >= firstWrite {
			t.Errorf("%s's GetSeat released at step %d, not before the first AssignSeat (step %d):\n%s", actor, u.ReleaseStep, firstWrite, units(a))
		}
		if len(u.Params) != 1 || strings.Join(artifact.Values(u.Params[0]), ",") != flight+","+seat {
			t.Errorf("%s's GetSeat params = %v, want [[%s %s]]", actor, u.Params, flight, seat)
		}
	}
}

func TestSeatRepaired(t *testing.T) {
	drivertest.Repaired(t, Scenario(true), interleave.Options{})
}

// executed is actor's first released, non-preparing unit whose SQL
// contains text.
func executed(a *artifact.Artifact, actor, text string) *artifact.Unit {
	for i := range a.Units {
		u := &a.Units[i]
		if u.Actor != actor || u.Prepare || u.ReleaseStep < 0 {
			continue
		}
		for _, s := range u.SQL {
			if strings.Contains(s, text) {
				return u
			}
		}
	}
	return nil
}

func units(a *artifact.Artifact) string {
	var b strings.Builder
	for _, u := range a.Units {
		sql := strings.Join(u.SQL, " | ")
		if i := strings.IndexByte(sql, '\n'); i >= 0 {
			sql = sql[:i]
		}
		fmt.Fprintf(&b, "%s %s %s step %d prepare=%v params=%v %s\n", u.Actor, u.Protocol, u.Messages, u.ReleaseStep, u.Prepare, u.Params, sql)
	}
	return b.String()
}

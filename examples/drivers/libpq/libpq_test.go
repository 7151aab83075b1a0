package libpq

import (
	"context"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/examples/drivers/drivertest"
	"github.com/pginterleave/interleave/interleavetest"
)

func TestMain(m *testing.M) { interleavetest.Main(m) }

func TestRegisterRace(t *testing.T) {
	res := drivertest.Race(t, Scenario(false), interleave.Options{})
	a := res.Artifact
	// lib/pq runs a parameterized statement on the unnamed statement in two
	// round trips: Parse/Describe/Sync (a preparation unit), then
	// Bind/Execute/Sync.
	for _, actor := range []string{"request1", "request2"} {
		us := unitsOf(a, actor)
		want := []string{"PDS", "BES", "PDS", "BES"}
		if got := messages(us); !slices.Equal(got, want) {
			t.Fatalf("%s sent units %v, want %v", actor, got, want)
		}
		for i, u := range us {
			if u.Protocol != "extended" || u.Prepare != (i%2 == 0) || !u.Completed || u.Error != "" {
				t.Fatalf("%s unit %d: protocol %s, prepare %v, completed %v, error %q", actor, i, u.Protocol, u.Prepare, u.Completed, u.Error)
			}
		}
		if !hasSQL(us[0], "SELECT count(*) FROM users") || !hasSQL(us[2], "INSERT INTO users") {
			t.Fatalf("%s prepared %q and %q", actor, us[0].SQL, us[2].SQL)
		}
		// The race itself: both counts saw no alice, both inserts added one.
		if !slices.Equal(us[1].Tags, []string{"SELECT 1"}) || us[1].Rows != 1 || !slices.Equal(us[3].Tags, []string{"INSERT 0 1"}) {
			t.Fatalf("%s: count unit tags %v rows %d, insert unit tags %v", actor, us[1].Tags, us[1].Rows, us[3].Tags)
		}
		if len(us[3].Params) != 1 || !slices.Equal(artifact.Values(us[3].Params[0]), []string{"alice"}) {
			t.Fatalf("%s inserted with params %v, want [[alice]]", actor, us[3].Params)
		}
	}
	for _, r := range a.Actors {
		if string(r.Value) != "true" {
			t.Fatalf("%s returned %s, want true (both requests think they registered alice)", r.Actor, r.Value)
		}
	}
}

func TestRegisterRepaired(t *testing.T) {
	res := drivertest.Repaired(t, Scenario(true), interleave.Options{})
	searched(t, res, 2)

	// In the default order the second INSERT ... ON CONFLICT DO NOTHING
	// inserts nothing, and its request is told the name is taken.
	a := defaultOrder(t, Scenario(true))
	var tags []string
	for _, actor := range []string{"request1", "request2"} {
		us := unitsOf(a, actor)
		if got := messages(us); !slices.Equal(got, []string{"PDS", "BES"}) {
			t.Fatalf("%s sent units %v, want [PDS BES]", actor, got)
		}
		tags = append(tags, us[1].Tags...)
	}
	if !slices.Equal(tags, []string{"INSERT 0 1", "INSERT 0 0"}) {
		t.Fatalf("insert tags %v, want [INSERT 0 1, INSERT 0 0]", tags)
	}
	if v := actorValues(a); !slices.Equal(v, []string{"true", "false"}) {
		t.Fatalf("actor results %v, want [true false]", v)
	}
}

func TestImportRace(t *testing.T) {
	res := drivertest.Race(t, ImportScenario(false), interleave.Options{})
	a := res.Artifact
	// With binary_parameters=yes lib/pq sends Parse/Bind/Describe/Execute/
	// Sync in one unit; BEGIN, COPY and COMMIT are simple queries.
	for _, actor := range []string{"cron", "operator"} {
		us := unitsOf(a, actor)
		want := []string{"Q", "PBDES", "Q", "PBDES", "Q"}
		if got := messages(us); !slices.Equal(got, want) {
			t.Fatalf("%s sent units %v, want %v", actor, got, want)
		}
		for i, u := range us {
			if u.Prepare || !u.Completed || u.Error != "" {
				t.Fatalf("%s unit %d: prepare %v, completed %v, error %q", actor, i, u.Prepare, u.Completed, u.Error)
			}
		}
		if !slices.Equal(us[0].Tags, []string{"BEGIN"}) || !slices.Equal(us[4].Tags, []string{"COMMIT"}) {
			t.Fatalf("%s: first unit tags %v, last %v", actor, us[0].Tags, us[4].Tags)
		}
		if us[1].Protocol != "extended" || !hasSQL(us[1], "SELECT EXISTS") || len(us[1].Params) != 1 || !slices.Equal(artifact.Values(us[1].Params[0]), []string{"2026-04-01"}) {
			t.Fatalf("%s check unit: %s %q params %v", actor, us[1].Protocol, us[1].SQL, us[1].Params)
		}
		cp := us[2]
		if cp.Protocol != "simple" || cp.Copy != "in" || !slices.Equal(cp.Tags, []string{"COPY 3"}) || cp.TxStatus != "T" || !hasSQL(cp, `COPY "readings" ("day", "sensor", "value") FROM STDIN`) {
			t.Fatalf("%s COPY unit: protocol %s, copy %q, tags %v, tx %s, SQL %q", actor, cp.Protocol, cp.Copy, cp.Tags, cp.TxStatus, cp.SQL)
		}
		if !slices.Equal(us[3].Tags, []string{"INSERT 0 1"}) {
			t.Fatalf("%s import record unit tags %v", actor, us[3].Tags)
		}
		// The race: this importer's check ran before the other's commit.
		other := unitsOf(a, map[string]string{"cron": "operator", "operator": "cron"}[actor])
		if us[1].ReleaseStep > other[4].ReleaseStep {
			t.Fatalf("%s checked at step %d, after the other importer committed at step %d", actor, us[1].ReleaseStep, other[4].ReleaseStep)
		}
	}
	if v := actorValues(a); !slices.Equal(v, []string{"true", "true"}) {
		t.Fatalf("actor results %v, want [true true]", v)
	}
}

func TestImportRepaired(t *testing.T) {
	res := drivertest.Repaired(t, ImportScenario(true), interleave.Options{})
	searched(t, res, 2)

	// In the default order the second importer waits on the advisory lock
	// held by the first, then finds the import recorded and rolls back
	// without a COPY.
	a := defaultOrder(t, ImportScenario(true))
	var waiter, holder string
	for _, u := range a.Units {
		if hasSQL(u, "pg_advisory_xact_lock") && len(u.LockWaits) > 0 {
			waiter, holder = u.Actor, strings.Join(u.LockWaits[0].BlockingActors, ",")
		}
	}
	if waiter == "" || holder == "" || waiter == holder {
		t.Fatalf("no importer waited on the other's advisory lock (waiter %q, holder %q)", waiter, holder)
	}
	var copies []string
	for _, u := range a.Units {
		if u.Copy != "" {
			copies = append(copies, u.Actor+":"+u.Copy+":"+strings.Join(u.Tags, ","))
		}
	}
	if !slices.Equal(copies, []string{holder + ":in:COPY 3"}) {
		t.Fatalf("COPY units %v, want one by %s", copies, holder)
	}
	us := unitsOf(a, waiter)
	if got := messages(us); !slices.Equal(got, []string{"Q", "PBDES", "PBDES", "Q"}) || !slices.Equal(us[3].Tags, []string{"ROLLBACK"}) {
		t.Fatalf("%s sent units %v ending with %v, want BEGIN, lock, check, ROLLBACK", waiter, got, us[len(us)-1].Tags)
	}
}

// searched checks what the repaired search explored: at least min orders,
// every one judged.
func searched(t *testing.T, res *interleave.Result, min int) {
	t.Helper()
	s := res.Summary
	if !s.Exhausted() || s.Attempted < min || s.Completed != s.Attempted || s.Failures != 0 || s.Inconclusive != 0 || s.Diverged != 0 || s.MaxDepth < 1 {
		t.Fatalf("repaired search: %+v", *s)
	}
}

// defaultOrder runs sc once in the default order and returns its record.
func defaultOrder(t *testing.T, sc interleave.Scenario) *artifact.Artifact {
	t.Helper()
	res, err := interleave.RunOnce(context.Background(), sc, interleave.Options{Server: interleave.ServerOptions{Use: interleavetest.Server()}})
	if err != nil {
		t.Fatalf("run %s: %v", sc.Name, err)
	}
	if res.Outcome != interleave.OutcomePass {
		t.Fatalf("%s in the default order: %s: %s", sc.Name, res.Outcome, res.Message)
	}
	return res.Artifact
}

// unitsOf returns actor's units (one connection each here) in order.
func unitsOf(a *artifact.Artifact, actor string) []artifact.Unit {
	var us []artifact.Unit
	for _, u := range a.Units {
		if u.Actor == actor {
			us = append(us, u)
		}
	}
	sort.Slice(us, func(i, j int) bool {
		return us[i].Conn < us[j].Conn || us[i].Conn == us[j].Conn && us[i].Unit < us[j].Unit
	})
	return us
}

func messages(us []artifact.Unit) []string {
	m := make([]string, len(us))
	for i, u := range us {
		m[i] = u.Messages
	}
	return m
}

func hasSQL(u artifact.Unit, s string) bool {
	for _, q := range u.SQL {
		if strings.Contains(q, s) {
			return true
		}
	}
	return false
}

// actorValues returns the actors' JSON results in release order of their
// last unit.
func actorValues(a *artifact.Artifact) []string {
	type done struct {
		step  int
		value string
	}
	var ds []done
	for _, r := range a.Actors {
		us := unitsOf(a, r.Actor)
		step := -1
		if len(us) > 0 {
			step = us[len(us)-1].ReleaseStep
		}
		ds = append(ds, done{step, string(r.Value)})
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i].step < ds[j].step })
	v := make([]string, len(ds))
	for i, d := range ds {
		v[i] = d.value
	}
	return v
}

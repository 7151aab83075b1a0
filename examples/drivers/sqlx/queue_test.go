package sqlx

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

var workers = []string{"worker1", "worker2"}

// pgx's database/sql driver prepares each statement once under a cached
// name (Parse/Describe/Sync, a preparation unit) and executes it with
// Bind/Execute/Sync (Bind/Describe/Execute/Sync for Exec); BEGIN and COMMIT
// are simple queries.
var wantMessages = []string{"Q", "PDS", "BES", "PDS", "BDES", "PDS", "BDES", "Q"}

func TestQueueRace(t *testing.T) {
	res := drivertest.Race(t, Scenario(false), interleave.Options{})
	a := res.Artifact
	var waited []string
	for i, w := range workers {
		us := unitsOf(a, w)
		if got := messages(us); !slices.Equal(got, wantMessages) {
			t.Fatalf("%s sent units %v, want %v", w, got, wantMessages)
		}
		for j, u := range us {
			prep := u.Messages == "PDS"
			if u.Prepare != prep || !u.Completed || u.Error != "" || (u.Protocol == "simple") != (u.Messages == "Q") {
				t.Fatalf("%s unit %d: protocol %s, messages %s, prepare %v, completed %v, error %q", w, j, u.Protocol, u.Messages, u.Prepare, u.Completed, u.Error)
			}
		}
		get, update, insert := us[2], us[4], us[6]
		// The Bind of a named statement carries its text in the record.
		if !hasSQL(get, nextJob) || hasSQL(get, "FOR UPDATE") || get.Rows != 1 {
			t.Fatalf("%s Get unit: SQL %q, rows %d", w, get.SQL, get.Rows)
		}
		// The race: both workers read job 1 and both mark it.
		if !hasSQL(update, "UPDATE jobs") || !slices.Equal(update.Tags, []string{"UPDATE 1"}) || len(update.Params) != 1 || !slices.Equal(artifact.Values(update.Params[0]), []string{w, "1"}) {
			t.Fatalf("%s UPDATE unit: SQL %q, tags %v, params %v", w, update.SQL, update.Tags, update.Params)
		}
		if !slices.Equal(insert.Tags, []string{"INSERT 0 1"}) || len(insert.Params) != 1 || !slices.Equal(artifact.Values(insert.Params[0]), []string{"1", w}) {
			t.Fatalf("%s claim unit: tags %v, params %v", w, insert.Tags, insert.Params)
		}
		if !slices.Equal(us[0].Tags, []string{"BEGIN"}) || !slices.Equal(us[7].Tags, []string{"COMMIT"}) {
			t.Fatalf("%s: first unit tags %v, last %v", w, us[0].Tags, us[7].Tags)
		}
		if len(update.LockWaits) > 0 {
			other := workers[1-i]
			if !slices.Equal(update.LockWaits[0].BlockingActors, []string{other}) {
				t.Fatalf("%s's UPDATE waited on %v, want %s", w, update.LockWaits[0].BlockingActors, other)
			}
			waited = append(waited, w)
		}
	}
	// The second UPDATE waited for the first worker's row lock, and then
	// overwrote its claim.
	if len(waited) != 1 {
		t.Fatalf("UPDATE units that waited on a row lock: %v, want exactly one", waited)
	}
	for _, r := range a.Actors {
		if string(r.Value) != "1" {
			t.Fatalf("%s returned job %s, want 1", r.Actor, r.Value)
		}
	}
}

func TestQueueRepaired(t *testing.T) {
	res := drivertest.Repaired(t, Scenario(true), interleave.Options{})
	s := res.Summary
	if !s.Exhausted() || s.Attempted < 2 || s.Completed != s.Attempted || s.Failures != 0 || s.Inconclusive != 0 || s.Diverged != 0 || s.MaxDepth < 1 {
		t.Fatalf("repaired search: %+v", *s)
	}

	// In the default order the second worker's SELECT ... FOR UPDATE SKIP
	// LOCKED skips the locked job 1 without waiting and takes job 2.
	run, err := interleave.RunOnce(context.Background(), Scenario(true), interleave.Options{Server: interleave.ServerOptions{Use: interleavetest.Server()}})
	if err != nil {
		t.Fatal(err)
	}
	if run.Outcome != interleave.OutcomePass {
		t.Fatalf("default order: %s: %s", run.Outcome, run.Message)
	}
	a := run.Artifact
	jobs := map[string]bool{}
	for _, w := range workers {
		us := unitsOf(a, w)
		if got := messages(us); !slices.Equal(got, wantMessages) {
			t.Fatalf("%s sent units %v, want %v", w, got, wantMessages)
		}
		get := us[2]
		if !hasSQL(get, nextJobLocked) || get.Rows != 1 || len(get.LockWaits) != 0 {
			t.Fatalf("%s Get unit: SQL %q, rows %d, lock waits %+v", w, get.SQL, get.Rows, get.LockWaits)
		}
		if len(us[4].Params) != 1 || len(us[4].Params[0]) != 2 {
			t.Fatalf("%s UPDATE params %v", w, us[4].Params)
		}
		jobs[us[4].Params[0][1].Value()] = true
	}
	if !jobs["1"] || !jobs["2"] {
		t.Fatalf("jobs updated in the default order: %v, want 1 and 2", jobs)
	}
	for _, u := range a.Units {
		if len(u.LockWaits) > 0 {
			t.Fatalf("%s unit %d waited on a lock: %+v", u.Actor, u.Unit, u.LockWaits)
		}
	}
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

// ints turns the record's rendering of binary integer parameters
// (`\x00000001 (binary; as int4 1)`) into the integer's text.

package pgxpool

import (
	"context"
	"strings"
	"testing"

	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/examples/drivers/drivertest"
	"github.com/pginterleave/interleave/interleavetest"
)

func TestMain(m *testing.M) { interleavetest.Main(m) }

var parties = []string{"party1", "party2"}

// pooled is the profile a connection pool needs.
var pooled = interleave.Options{Proxy: interleave.ProxyOptions{Connections: "multi-producer"}}

// executed returns actor's executing units whose first statement starts with
// prefix.
func executed(a *artifact.Artifact, actor, prefix string) []artifact.Unit {
	var out []artifact.Unit
	for _, u := range a.Units {
		if u.Actor == actor && !u.Prepare && len(u.SQL) > 0 && strings.HasPrefix(u.SQL[0], prefix) {
			out = append(out, u)
		}
	}
	return out
}

// checkTwoConnections requires each party to have used two connections, with
// units pending on both at the same decision.
func checkTwoConnections(t *testing.T, a *artifact.Artifact) {
	t.Helper()
	for _, p := range parties {
		conns, pids := map[int]bool{}, map[uint32]bool{}
		for _, c := range a.Connections {
			if c.Actor == p {
				conns[c.Conn], pids[c.BackendPID] = true, true
			}
		}
		if len(conns) != 2 || len(pids) != 2 {
			t.Errorf("%s used connections %v (backends %v); want two", p, conns, pids)
		}
		together := false
		for _, d := range a.Schedule.Decisions {
			seen := map[int]bool{}
			for _, c := range d.Candidates {
				if c.Actor == p {
					seen[c.Conn] = true
				}
			}
			together = together || len(seen) == 2
		}
		if !together {
			t.Errorf("%s never had units pending on both of its connections at once", p)
		}
	}
}

func TestOverbookingRace(t *testing.T) {
	res := drivertest.Race(t, Scenario(false), pooled)
	if !strings.Contains(res.Message, "overbooked: 4 tickets for 3 seats") {
		t.Fatalf("message %q", res.Message)
	}
	a := res.Artifact
	if a.Limits.Connections != "multi-producer" {
		t.Errorf("the artifact records connection profile %q", a.Limits.Connections)
	}
	checkTwoConnections(t, a)
	var reads, writes []artifact.Unit
	for _, p := range parties {
		rs, ws := executed(a, p, "SELECT s.capacity"), executed(a, p, "INSERT INTO tickets")
		if len(rs) != 2 || len(ws) != 2 {
			t.Fatalf("%s ran %d seat checks and %d ticket inserts; want 2 and 2", p, len(rs), len(ws))
		}
		for _, u := range append(append([]artifact.Unit(nil), rs...), ws...) {
			if u.Protocol != "extended" || !strings.HasSuffix(u.Messages, "ES") || u.TxStatus != "I" {
				t.Errorf("%s's unit %q: %s %q status %q; want an autocommit extended cycle ending Execute, Sync", p, u.SQL[0], u.Protocol, u.Messages, u.TxStatus)
			}
		}
		reads, writes = append(reads, rs...), append(writes, ws...)
	}
	// Every guest saw a free seat before any ticket was written.
	for _, r := range reads {
		for _, w := range writes {
			if r.ReleaseStep > w.ReleaseStep {
				t.Errorf("%s's check on connection #%d (step %d) ran after %s's insert on connection #%d (step %d)", r.Actor, r.Conn, r.ReleaseStep, w.Actor, w.Conn, w.ReleaseStep)
			}
		}
	}
}

func TestOverbookingRepaired(t *testing.T) {
	res := drivertest.Repaired(t, Scenario(true), pooled)
	if s := res.Summary; s.Diverged != 0 || s.Completed != s.Attempted {
		t.Fatalf("%d of %d attempts diverged from their plan, %d completed; every order must have been judged", s.Diverged, s.Attempted, s.Completed)
	}
}

// TestOverbookingRepairedUsesTwoConnections runs the repair once and checks
// that the requests really used two connections each.
func TestOverbookingRepairedUsesTwoConnections(t *testing.T) {
	opts := pooled
	opts.Server.Use = interleavetest.Server()
	res, err := interleave.RunOnce(context.Background(), Scenario(true), opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomePass {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Message)
	}
	checkTwoConnections(t, res.Artifact)
}

// TestPoolNeedsMultiProducer: under the default single-producer profile the
// pool's second simultaneous connection is refused with a harness error that
// names the flag to use.
func TestPoolNeedsMultiProducer(t *testing.T) {
	res, err := interleave.Explore(context.Background(), Scenario(false), interleave.Options{Server: interleave.ServerOptions{Use: interleavetest.Server()}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomeHarnessError || !strings.Contains(res.Message, "Options.Proxy.Connections multi-producer") {
		t.Fatalf("outcome %s, message %q; want a harness error naming Options.Proxy.Connections multi-producer (the CLI shows --connections)", res.Outcome, res.Message)
	}
	if a := res.Artifact; a == nil || a.Outcome.Kind != "harness-error" || a.Limits.Connections != "single-producer" {
		t.Fatalf("artifact %+v; want a harness-error artifact recorded under single-producer", res.Artifact)
	}
	t.Logf("refused as expected: %s", res.Message)
}

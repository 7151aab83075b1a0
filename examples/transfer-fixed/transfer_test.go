package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/interleavetest"
	"github.com/pginterleave/interleave/sched"
)

func TestMain(m *testing.M) { interleavetest.Main(m) }

// The repair passes with every order and every fault explored: each of
// lost-reply, reset and terminate at each command of each order.
func TestTransferIDSurvivesEveryFault(t *testing.T) {
	res, err := interleave.Explore(context.Background(), Scenario(), interleave.Options{
		Server: interleave.ServerOptions{Use: interleavetest.Server()},
		Search: interleave.SearchOptions{Faults: sched.FaultKinds(), Workers: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	t.Logf("%d attempts (%d with a fault) in %v; stop: %s", s.Attempted, s.FaultAttempts, s.Elapsed, s.StopReason)
	if res.Outcome != interleave.OutcomePass || !s.Exhausted() || s.Inconclusive > 0 || s.Diverged > 0 {
		t.Fatalf("outcome %s (%s), stop %q, %d inconclusive, %d diverged; want an exhausted pass", res.Outcome, res.Message, s.StopReason, s.Inconclusive, s.Diverged)
	}
	if s.FaultAttempts == 0 || s.FaultAttempts >= s.Attempted {
		t.Fatalf("%d of %d attempts injected a fault; want some, not all", s.FaultAttempts, s.Attempted)
	}
}

// The failure examples/transfer records (testdata/transfer-lost-commit.json,
// written by `interleave run ./examples/transfer --faults lost-reply --out
// ...`), replayed guided against the repair: the same lost reply at the
// first COMMIT, and the second try finds transfer 7 recorded and moves
// nothing.
func TestLostCommitReplyReplayedAgainstTheRepair(t *testing.T) {
	rec, err := artifact.Read("testdata/transfer-lost-commit.json")
	if err != nil {
		t.Fatal(err)
	}
	res, err := interleave.Replay(context.Background(), Scenario(), rec, interleave.ReplayOptions{Guided: true, Options: interleave.Options{Server: interleave.ServerOptions{Use: interleavetest.Server()}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomePass {
		t.Fatalf("guided replay: %s (%s); want a pass", res.Outcome, res.Message)
	}
	faulted := 0
	for _, u := range res.Artifact.Units {
		if u.Fault != "" {
			faulted++
			if u.Fault != "lost-reply" || len(u.SQL) == 0 || u.SQL[0] != "commit" || !u.Completed {
				t.Errorf("faulted unit %s#%d.%d %q (%s), completed %v; want the first COMMIT, lost-reply", u.Actor, u.Conn, u.Unit, u.SQL, u.Fault, u.Completed)
			}
		}
	}
	if faulted != 1 {
		t.Fatalf("%d faulted units; want the recorded one", faulted)
	}
	var got struct {
		Try   int  `json:"try"`
		Found bool `json:"found"`
	}
	if err := json.Unmarshal(res.Artifact.Actors[0].Value, &got); err != nil {
		t.Fatalf("transfer's value %s: %v", res.Artifact.Actors[0].Value, err)
	}
	if got.Try != 2 || !got.Found {
		t.Fatalf("transfer returned %+v; want the second try to find the first one's COMMIT", got)
	}
}

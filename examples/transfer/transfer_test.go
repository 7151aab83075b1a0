package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/interleavetest"
	"github.com/pginterleave/interleave/sched"
)

func TestMain(m *testing.M) { interleavetest.Main(m) }

func options(faults ...sched.Fault) interleave.Options {
	return interleave.Options{
		Server: interleave.ServerOptions{Use: interleavetest.Server()},
		Search: interleave.SearchOptions{Faults: faults, Workers: 1},
	}
}

// Without faults every order passes (the audit reads a whole total in
// every order); with lost-reply the search finds the lost COMMIT reply and
// the money moved twice; the failure replays and minimizes to that one
// fault.
func TestLostCommitReplyMovesTheMoneyTwice(t *testing.T) {
	ctx := context.Background()
	res, err := interleave.Explore(ctx, Scenario(), options())
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomePass || !res.Summary.Exhausted() {
		t.Fatalf("without faults: outcome %s (%s), stop %q; want an exhausted pass", res.Outcome, res.Message, res.Summary.StopReason)
	}
	t.Logf("without faults: %d orders, all pass", res.Summary.Attempted)

	res, err = interleave.Explore(ctx, Scenario(), options(sched.LostReply))
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomeViolation || !strings.Contains(res.Message, "balances are 40 and 160") {
		t.Fatalf("with lost-reply: outcome %s (%s); want the money moved twice", res.Outcome, res.Message)
	}
	t.Logf("found after %d attempts (%d with a fault) in %v: %s", res.Summary.Attempted, res.Summary.FaultAttempts, res.Summary.Elapsed, res.Message)
	var faulted []artifact.Unit
	commits := 0
	for _, u := range res.Artifact.Units {
		if u.Fault != "" {
			faulted = append(faulted, u)
		}
		if len(u.SQL) > 0 && strings.EqualFold(u.SQL[0], "commit") && u.Completed {
			commits++
		}
	}
	if len(faulted) != 1 || faulted[0].Fault != string(sched.LostReply) || !strings.EqualFold(faulted[0].SQL[0], "commit") || !faulted[0].Completed {
		t.Fatalf("faulted units %+v; want one completed COMMIT whose reply was lost", faulted)
	}
	if commits != 2 {
		t.Fatalf("%d completed COMMITs; want 2 (the one whose reply was lost, and the retry's)", commits)
	}

	path := filepath.Join(t.TempDir(), "transfer.json")
	if err := artifact.Write(path, res.Artifact, false); err != nil {
		t.Fatal(err)
	}
	rec, err := artifact.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := interleave.Replay(ctx, Scenario(), rec, interleave.ReplayOptions{Options: options()})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Outcome != interleave.OutcomeViolation || !rep.SameFailure {
		t.Fatalf("replay: outcome %s (%s), same failure %v; want the recorded violation", rep.Outcome, rep.Message, rep.SameFailure)
	}
	min, err := interleave.Minimize(ctx, Scenario(), rec, interleave.MinimizeOptions{Options: options()})
	if err != nil {
		t.Fatal(err)
	}
	if min.Outcome != interleave.OutcomeViolation || min.After != 1 {
		t.Fatalf("minimize: outcome %s (%s), %d choices left; want the violation with its one fault", min.Outcome, min.Message, min.After)
	}
}

package main

import (
	"context"
	"strings"
	"testing"

	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/interleavetest"
	"github.com/pginterleave/interleave/sched"
)

func TestMain(m *testing.M) { interleavetest.Main(m) }

// No order loses the job; PostgreSQL terminating the worker's backend
// between its claim and its work does, and the recording replays.
func TestTerminatedWorkerLosesItsJob(t *testing.T) {
	ctx := context.Background()
	opts := interleave.Options{Server: interleave.ServerOptions{Use: interleavetest.Server()}, Search: interleave.SearchOptions{Workers: 1}}
	res, err := interleave.Explore(ctx, Scenario(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomePass || !res.Summary.Exhausted() {
		t.Fatalf("without faults: %s (%s); want an exhausted pass", res.Outcome, res.Message)
	}
	opts.Search.Faults = sched.Faults{sched.Terminate}
	opts.Search.MaxAttempts = 30
	res, err = interleave.Explore(ctx, Scenario(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomeViolation || !strings.Contains(res.Message, "left claimed") {
		t.Fatalf("with terminate: %s (%s); want the job left claimed", res.Outcome, res.Message)
	}
	t.Logf("found after %d attempts (%d with a fault) in %v", res.Summary.Attempted, res.Summary.FaultAttempts, res.Summary.Elapsed)
	var faulted []string
	for _, u := range res.Artifact.Units {
		if u.Fault != "" {
			faulted = append(faulted, u.Fault+" at "+strings.Join(u.SQL, ";"))
			if u.Actor != "worker" || u.Fault != "terminate" || u.Completed {
				t.Errorf("faulted unit %s#%d.%d %q: fault %s, completed %v; want the worker's, terminated before it ran", u.Actor, u.Conn, u.Unit, u.SQL, u.Fault, u.Completed)
			}
		}
	}
	if len(faulted) != 1 {
		t.Fatalf("faults %v; want one", faulted)
	}
	if e := res.Artifact.Actors[0].Error; !strings.Contains(e, "57P01") {
		t.Fatalf("worker returned %q; want PostgreSQL's 57P01", e)
	}
	rep, err := interleave.Replay(ctx, Scenario(), res.Artifact, interleave.ReplayOptions{Options: interleave.Options{Server: interleave.ServerOptions{Use: interleavetest.Server()}}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Outcome != interleave.OutcomeViolation || !rep.SameFailure {
		t.Fatalf("replay: %s (%s); want the recorded failure", rep.Outcome, rep.Message)
	}
}

package main

import (
	"context"
	"testing"

	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/interleavetest"
	"github.com/pginterleave/interleave/sched"
)

func TestMain(m *testing.M) { interleavetest.Main(m) }

// The repair passes with every order and every fault explored.
func TestClaimInsideTheWorkSurvivesEveryFault(t *testing.T) {
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
	if s.FaultAttempts == 0 {
		t.Fatal("no attempt injected a fault")
	}
}

// The lease repair passes with every order and every fault explored: a
// claim left by a session that is gone is taken again by the worker's
// next try.
func TestLeaseSurvivesEveryFault(t *testing.T) {
	res, err := interleave.Explore(context.Background(), LeaseScenario(), interleave.Options{
		Server: interleave.ServerOptions{Use: interleavetest.Server()},
		Search: interleave.SearchOptions{Faults: sched.FaultKinds(), Workers: 2},
	})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	t.Logf("%d attempts (%d with a fault) in %v; stop: %s", s.Attempted, s.FaultAttempts, s.Elapsed, s.StopReason)
	if res.Outcome != interleave.OutcomePass || !s.Exhausted() || s.Inconclusive > 0 || s.Diverged > 0 {
		t.Fatalf("outcome %s (%s), stop %q, %d inconclusive, %d diverged; want an exhausted pass", res.Outcome, res.Message, s.StopReason, s.Inconclusive, s.Diverged)
	}
	if s.FaultAttempts == 0 {
		t.Fatal("no attempt injected a fault")
	}
}

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

func options() interleave.Options {
	return interleave.Options{
		Server: interleave.ServerOptions{Use: interleavetest.Server()},
		Search: interleave.SearchOptions{Faults: sched.Faults{sched.LostReply}, MaxAttempts: 20, Workers: 1},
	}
}

// faultedUnit is the unit a recording injected a fault into.
func faultedUnit(t *testing.T, a *artifact.Artifact) artifact.Unit {
	t.Helper()
	var out []artifact.Unit
	for _, u := range a.Units {
		if u.Fault != "" {
			out = append(out, u)
		}
	}
	if len(out) != 1 {
		t.Fatalf("the recording has %d faulted units; want 1", len(out))
	}
	return out[0]
}

// The double charge: without faults no order breaks the rule (one actor has
// one order); with lost-reply the search finds the lost COMMIT reply, and
// the recording shows it: the COMMIT completed on the server and its
// connection was closed, and the retry charged again on a new connection.
func TestLostCommitReplyChargesTwice(t *testing.T) {
	ctx := context.Background()
	noFaults := options()
	noFaults.Search.Faults = nil
	res, err := interleave.Explore(ctx, Scenario(), noFaults)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomePass || !res.Summary.Exhausted() {
		t.Fatalf("without faults: outcome %s (%s), stop %q; want an exhausted pass", res.Outcome, res.Message, res.Summary.StopReason)
	}

	res, err = interleave.Explore(ctx, Scenario(), options())
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomeViolation {
		t.Fatalf("with lost-reply: outcome %s (%s); want a violation", res.Outcome, res.Message)
	}
	if !strings.Contains(res.Message, "2 charges, balance 40") {
		t.Fatalf("message %q; want the order charged twice", res.Message)
	}
	t.Logf("found after %d attempts (%d with a fault) in %v", res.Summary.Attempted, res.Summary.FaultAttempts, res.Summary.Elapsed)
	a := res.Artifact
	// Named, and no critical pair looked for: reversals would run
	// without the fault.
	if x := a.Explanation; x == nil || x.CriticalPair != nil || !strings.Contains(strings.Join(x.Notes, "; "), "injected a fault (lost-reply at step") {
		t.Fatalf("the artifact explains %+v; want the anomaly named, no critical pair, and a note naming the fault", a.Explanation)
	}
	// explain says it cannot judge a failure that needs a fault.
	x, err := interleave.Explain(ctx, Scenario(), a, interleave.ExplainOptions{Options: options()})
	if err != nil || x.Fix == nil || !strings.Contains(x.Fix.Advice, "the failure needs a fault") || x.CriticalPair != nil {
		t.Fatalf("explain of a fault's failure: %v %+v", err, x)
	}
	u := faultedUnit(t, a)
	if u.Fault != string(sched.LostReply) || len(u.SQL) == 0 || !strings.EqualFold(u.SQL[0], "commit") || !u.Completed || strings.Join(u.Tags, ",") != "COMMIT" {
		t.Fatalf("faulted unit %+v; want a completed COMMIT with fault lost-reply", u)
	}
	var choice *artifact.Choice
	for i := range a.Schedule.Choices {
		if a.Schedule.Choices[i].Fault != "" {
			choice = &a.Schedule.Choices[i]
		}
	}
	if choice == nil || choice.Fault != "lost-reply" || choice.Release[0].Unit != u.Unit || choice.Release[0].Conn != u.Conn {
		t.Fatalf("choices %+v; want the lost reply at unit %d.%d", a.Schedule.Choices, u.Conn, u.Unit)
	}
	commits := 0
	for _, x := range a.Units {
		if len(x.SQL) > 0 && strings.EqualFold(x.SQL[0], "commit") && x.Completed {
			commits++
			if x.Conn == u.Conn && x.Unit != u.Unit {
				t.Errorf("a second COMMIT on the faulted connection #%d", u.Conn)
			}
		}
	}
	if commits != 2 {
		t.Fatalf("%d completed COMMITs; want 2 (the lost one and the retry's)", commits)
	}
	if a.Fingerprint == nil || a.Fingerprint.Faults != "lost-reply" {
		t.Fatalf("fingerprint faults %+v; want lost-reply", a.Fingerprint)
	}

	// The saved failure replays exactly, fault included.
	path := filepath.Join(t.TempDir(), "payment.json")
	if err := artifact.Write(path, a, false); err != nil {
		t.Fatal(err)
	}
	rec, err := artifact.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := interleave.Replay(ctx, Scenario(), rec, interleave.ReplayOptions{Options: interleave.Options{Server: interleave.ServerOptions{Use: interleavetest.Server()}}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Outcome != interleave.OutcomeViolation || !rep.SameFailure {
		t.Fatalf("replay: outcome %s (%s), same failure %v; want the recorded violation", rep.Outcome, rep.Message, rep.SameFailure)
	}
	if got := faultedUnit(t, rep.Artifact); got.Conn != u.Conn || got.Unit != u.Unit || got.Fault != u.Fault {
		t.Fatalf("replay faulted %s#%d.%d (%s); want %d.%d (%s)", got.Actor, got.Conn, got.Unit, got.Fault, u.Conn, u.Unit, u.Fault)
	}
	guided, err := interleave.Replay(ctx, Scenario(), rec, interleave.ReplayOptions{Guided: true, Options: interleave.Options{Server: interleave.ServerOptions{Use: interleavetest.Server()}}})
	if err != nil {
		t.Fatal(err)
	}
	if guided.Outcome != interleave.OutcomeViolation || !guided.SameFailure {
		t.Fatalf("guided replay: outcome %s (%s); want the recorded violation", guided.Outcome, guided.Message)
	}

	// Minimize keeps the fault: without it the order is charged once.
	min, err := interleave.Minimize(ctx, Scenario(), rec, interleave.MinimizeOptions{Options: interleave.Options{Server: interleave.ServerOptions{Use: interleavetest.Server()}}})
	if err != nil {
		t.Fatal(err)
	}
	if min.Outcome != interleave.OutcomeViolation || !min.LocallyMinimal || min.After != 1 {
		t.Fatalf("minimize: outcome %s (%s), %d choices left, locally minimal %v; want the violation with its one fault", min.Outcome, min.Message, min.After, min.LocallyMinimal)
	}
	if got := faultedUnit(t, min.Artifact); got.Fault != "lost-reply" || !strings.EqualFold(got.SQL[0], "commit") {
		t.Fatalf("minimized fault %s at %q; want lost-reply at the COMMIT", got.Fault, got.SQL)
	}
}

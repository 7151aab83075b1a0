package pgxconn

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/examples/drivers/drivertest"
	"github.com/pginterleave/interleave/interleavetest"
)

func TestMain(m *testing.M) { interleavetest.Main(m) }

// executed returns the units of actor that executed SQL starting with
// prefix (statement preparations excluded).
func executed(a *artifact.Artifact, actor, prefix string) []artifact.Unit {
	var out []artifact.Unit
	for _, u := range a.Units {
		if u.Actor == actor && !u.Prepare && len(u.SQL) > 0 && strings.HasPrefix(u.SQL[0], prefix) {
			out = append(out, u)
		}
	}
	return out
}

func one(t *testing.T, a *artifact.Artifact, actor, prefix string) artifact.Unit {
	t.Helper()
	us := executed(a, actor, prefix)
	if len(us) != 1 {
		t.Fatalf("%s executed %d units starting with %q; want 1", actor, len(us), prefix)
	}
	return us[0]
}

func TestOverdraftRace(t *testing.T) {
	res := drivertest.Race(t, Scenario(false), interleave.Options{})
	if !strings.Contains(res.Message, "overdraft: paid out 130 from an account that held 100") {
		t.Fatalf("message %q; want both withdrawals (70 + 60) paid", res.Message)
	}
	a := res.Artifact
	actors := []string{"alice", "bob"}
	// The transaction brackets are simple-protocol queries; the statements
	// inside are extended-protocol cycles (Bind, Execute, Sync) run while
	// the session is in a transaction block.
	for _, name := range actors {
		begin, commit := one(t, a, name, "begin"), one(t, a, name, "commit")
		if begin.Protocol != "simple" || begin.Messages != "Q" || strings.Join(begin.Tags, ",") != "BEGIN" || begin.TxStatus != "T" {
			t.Errorf("%s's BEGIN unit: %s %q tags %v status %q; want a simple Query tagged BEGIN leaving status T", name, begin.Protocol, begin.Messages, begin.Tags, begin.TxStatus)
		}
		if commit.Protocol != "simple" || strings.Join(commit.Tags, ",") != "COMMIT" || commit.TxStatus != "I" {
			t.Errorf("%s's COMMIT unit: %s tags %v status %q; want a simple Query tagged COMMIT leaving status I", name, commit.Protocol, commit.Tags, commit.TxStatus)
		}
		for _, prefix := range []string{"SELECT balance", "UPDATE accounts"} {
			u := one(t, a, name, prefix)
			if u.Protocol != "extended" || !strings.Contains(u.Messages, "E") || u.TxStatus != "T" {
				t.Errorf("%s's %q unit: %s %q status %q; want an extended cycle with Execute inside the transaction", name, prefix, u.Protocol, u.Messages, u.TxStatus)
			}
		}
	}
	// The lost update: both reads were released before either write.
	for _, reader := range actors {
		for _, writer := range actors {
			r, w := one(t, a, reader, "SELECT balance"), one(t, a, writer, "UPDATE accounts")
			if r.ReleaseStep < 0 || r.ReleaseStep > w.ReleaseStep {
				t.Errorf("%s's read (step %d) was not released before %s's write (step %d)", reader, r.ReleaseStep, writer, w.ReleaseStep)
			}
		}
	}
}

func TestOverdraftRepaired(t *testing.T) {
	drivertest.Repaired(t, Scenario(true), interleave.Options{})
}

// TestOverdraftRepairedWaitsOnRowLock runs the repair once in the default
// order: the second SELECT ... FOR UPDATE must be recorded as waiting on the
// first actor's row lock, finish only after that actor's COMMIT, and see
// the reduced balance.
func TestOverdraftRepairedWaitsOnRowLock(t *testing.T) {
	res, err := interleave.RunOnce(context.Background(), Scenario(true), interleave.Options{Server: interleave.ServerOptions{Use: interleavetest.Server()}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomePass {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Message)
	}
	a := res.Artifact
	var waiter, holder string
	for _, name := range []string{"alice", "bob"} {
		if u := one(t, a, name, "SELECT balance"); len(u.LockWaits) > 0 {
			waiter = name
			if got := u.LockWaits[0].BlockingActors; len(got) != 1 {
				t.Fatalf("%s's locking read waited on %v; want one actor", name, got)
			}
			holder = u.LockWaits[0].BlockingActors[0]
		}
	}
	if waiter == "" || holder == waiter {
		t.Fatalf("no SELECT ... FOR UPDATE recorded a wait on the other actor; units: %+v", a.Units)
	}
	read, commit := one(t, a, waiter, "SELECT balance"), one(t, a, holder, "commit")
	if !read.Completed || !strings.HasSuffix(read.SQL[0], "FOR UPDATE") || !(read.ReleaseStep < commit.ReleaseStep && read.CompletedUS >= commit.ReleasedUS) {
		t.Fatalf("%s's locking read (released at step %d, completed at %dus) should finish after %s's COMMIT (step %d, released at %dus)",
			waiter, read.ReleaseStep, read.CompletedUS, holder, commit.ReleaseStep, commit.ReleasedUS)
	}
	if len(executed(a, waiter, "UPDATE")) != 0 {
		t.Fatalf("%s wrote after waiting; it should have seen the reduced balance and declined", waiter)
	}
	for _, r := range a.Actors {
		var p Payout
		if err := json.Unmarshal(r.Value, &p); err != nil {
			t.Fatalf("%s's recorded value %s: %v", r.Actor, r.Value, err)
		}
		if p.Paid != (r.Actor == holder) {
			t.Errorf("%s paid=%v; want only %s paid", r.Actor, p.Paid, holder)
		}
	}
}

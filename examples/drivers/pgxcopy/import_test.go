package pgxcopy

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/capture"
	"github.com/pginterleave/interleave/examples/drivers/drivertest"
	"github.com/pginterleave/interleave/interleavetest"
	"github.com/pginterleave/interleave/netproxy"
)

func TestMain(m *testing.M) { interleavetest.Main(m) }

var actors = []string{"cron", "retry"}

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

func one(t *testing.T, a *artifact.Artifact, actor, prefix string) artifact.Unit {
	t.Helper()
	us := executed(a, actor, prefix)
	if len(us) != 1 {
		t.Fatalf("%s executed %d units starting with %q; want 1", actor, len(us), prefix)
	}
	return us[0]
}

// sentBy returns the bytes actor sent to the server, from the capture.
func sentBy(t *testing.T, a *artifact.Artifact, actor int) []byte {
	t.Helper()
	if a.Capture == nil {
		t.Fatal("the failing attempt has no capture")
	}
	raw, err := a.Capture.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	recs, err := capture.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	var sent bytes.Buffer
	for _, r := range recs {
		if r.Kind == capture.KindBytes && r.Actor == actor && r.Dir == netproxy.ClientToServer {
			sent.Write(r.Data)
		}
	}
	return sent.Bytes()
}

func TestDoubleImportRace(t *testing.T) {
	res := drivertest.Race(t, Scenario(false), interleave.Options{})
	if !strings.Contains(res.Message, "the import of 2024-05-01 ran 2 times: 6 readings for 3 source rows") {
		t.Fatalf("message %q", res.Message)
	}
	a := res.Artifact
	for i, name := range actors {
		// CopyFrom is a simple Query that switches the connection into COPY
		// IN; the CopyData and CopyDone messages pass through ungated as part
		// of that unit, which completes at ReadyForQuery with "COPY 3".
		cp := one(t, a, name, "copy ")
		if cp.Protocol != "simple" || cp.Messages != "Q" || cp.Copy != "in" || strings.Join(cp.Tags, ",") != "COPY 3" ||
			!strings.HasSuffix(cp.SQL[0], "from stdin binary;") || cp.TxStatus != "T" || !cp.Completed {
			t.Errorf("%s's COPY unit: %s %q copy %q tags %v status %q sql %q; want a simple Query, COPY in, tagged COPY 3, inside the transaction",
				name, cp.Protocol, cp.Messages, cp.Copy, cp.Tags, cp.TxStatus, cp.SQL)
		}
		// Before the COPY, pgx describes "select <columns> from <table>" to
		// learn the column types for the binary format: a preparation unit.
		described := false
		for _, u := range a.Units {
			if u.Actor == name && u.Prepare && len(u.SQL) == 1 && u.SQL[0] == `select "day", "sensor", "value" from "readings"` {
				described = true
			}
		}
		if !described {
			t.Errorf("%s has no preparation unit describing the COPY's columns", name)
		}
		// The binary COPY stream went through the proxy: the PGCOPY header in
		// CopyData, then CopyDone.
		sent := sentBy(t, a, i)
		data := bytes.Index(sent, []byte("PGCOPY\n\377\r\n\000"))
		if data < 5 || sent[data-5] != 'd' || !bytes.Contains(sent[data:], []byte{'c', 0, 0, 0, 4}) {
			t.Errorf("%s's capture lacks a CopyData with the binary COPY header followed by CopyDone", name)
		}
	}
	// The race: each run checked before the other committed its import.
	for _, checker := range actors {
		for _, committer := range actors {
			check, commit := one(t, a, checker, "SELECT count(*)"), one(t, a, committer, "commit")
			if check.ReleaseStep > commit.ReleaseStep {
				t.Errorf("%s checked (step %d) after %s committed (step %d)", checker, check.ReleaseStep, committer, commit.ReleaseStep)
			}
		}
	}
}

func TestDoubleImportRepaired(t *testing.T) {
	drivertest.Repaired(t, Scenario(true), interleave.Options{})
}

// TestDoubleImportRepairedWaitsOnAdvisoryLock runs the repair once in the
// default order: the second run's pg_advisory_xact_lock waits on the first
// run, which then loads alone; the second run skips the COPY.
func TestDoubleImportRepairedWaitsOnAdvisoryLock(t *testing.T) {
	res, err := interleave.RunOnce(context.Background(), Scenario(true), interleave.Options{Server: interleave.ServerOptions{Use: interleavetest.Server()}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomePass {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Message)
	}
	a := res.Artifact
	var waiter, holder string
	for _, name := range actors {
		if u := one(t, a, name, "SELECT pg_advisory_xact_lock"); len(u.LockWaits) > 0 {
			waiter, holder = name, strings.Join(u.LockWaits[0].BlockingActors, ",")
		}
	}
	if waiter == "" || holder == waiter || (holder != "cron" && holder != "retry") {
		t.Fatalf("no advisory lock unit recorded a wait on the other run (waiter %q, holder %q)", waiter, holder)
	}
	lock, commit := one(t, a, waiter, "SELECT pg_advisory_xact_lock"), one(t, a, holder, "commit")
	if lock.CompletedUS < commit.ReleasedUS {
		t.Errorf("%s got the advisory lock at %dus, before %s's COMMIT was released at %dus", waiter, lock.CompletedUS, holder, commit.ReleasedUS)
	}
	if n := len(executed(a, holder, "copy ")); n != 1 {
		t.Errorf("%s ran %d COPYs; want 1", holder, n)
	}
	if n := len(executed(a, waiter, "copy ")); n != 0 {
		t.Errorf("%s ran %d COPYs after waiting; want 0 (the import was recorded)", waiter, n)
	}
}

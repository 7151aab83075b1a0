package cli

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/internal/testkit/golden"
)

func TestPrintOrderShowsWhatHappened(t *testing.T) {
	a := &artifact.Artifact{}
	add := func(u artifact.Unit) {
		u.Completed = true
		u.ReleaseStep = len(a.Schedule.Decisions)
		a.Units = append(a.Units, u)
		a.Schedule.Decisions = append(a.Schedule.Decisions, artifact.Decision{Release: []artifact.UnitRef{{Actor: u.Actor, Conn: u.Conn, Unit: u.Unit, Hash: "h"}}})
	}
	add(artifact.Unit{Actor: "alice", Unit: 0, SQL: []string{"BEGIN"}})
	add(artifact.Unit{Actor: "alice", Unit: 1, SQL: []string{"SELECT 1"}, Prepare: true})
	add(artifact.Unit{Actor: "bob", Unit: 0, SQL: []string{"UPDATE t\n   SET n = $1"}, Params: [][]artifact.Param{{{Binary: true, Hex: "00000007", Size: 4, Int: ptr(7)}}},
		LockWaits: []artifact.LockWait{{BlockingActors: []string{"alice"}}}})
	add(artifact.Unit{Actor: "bob", Conn: 1, Unit: 0, SQL: []string{"INSERT INTO t VALUES (1)"}, SQLState: "23505"})
	add(artifact.Unit{Actor: "zoë", Unit: 0, SQL: []string{"SELECT $1"}, Params: [][]artifact.Param{{{Text: "a\nb\x1b[2Jc", Size: 8}}}})
	var b bytes.Buffer
	printOrder(&b, a, "failure.json")
	// What the reader sees: bob's two connections told apart, the lock wait
	// and the error marked, the parameter shown as its integer, control
	// characters made harmless, the statement preparation left out (its
	// release step, 1, is missing from the numbers).
	golden.Check(t, "testdata/order.golden", b.Bytes())

	long := &artifact.Artifact{}
	for i := 0; i < maxOrderLines+5; i++ {
		long.Units = append(long.Units, artifact.Unit{Actor: "a", Unit: i, SQL: []string{fmt.Sprintf("SELECT %d", i)}, Completed: true, ReleaseStep: i})
		long.Schedule.Decisions = append(long.Schedule.Decisions, artifact.Decision{Release: []artifact.UnitRef{{Actor: "a", Unit: i}}})
	}
	b.Reset()
	printOrder(&b, long, "my dir/x.json")
	// Cut at maxOrderLines, with the command that shows the rest.
	golden.Check(t, "testdata/order-long.golden", b.Bytes())
}

func ptr(n int64) *int64 { return &n }

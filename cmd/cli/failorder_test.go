package cli

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/pginterleave/interleave/artifact"
)

func TestPrintOrderShowsWhatHappened(t *testing.T) {
	a := &artifact.Artifact{}
	add := func(u artifact.Unit) {
		u.Completed = true
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
	got := b.String()
	for _, want := range []string{
		"    1  alice  BEGIN\n",
		"    2  bob#0  UPDATE t SET n = $1  -- $1=7 (int4?)  [waited on alice]\n",
		"    3  bob#1  INSERT INTO t VALUES (1)  [ERROR 23505]\n",
		"    4  zoë    SELECT $1  -- $1=a b?[2Jc\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "SELECT 1") {
		t.Errorf("a statement preparation is listed:\n%s", got)
	}

	long := &artifact.Artifact{}
	for i := 0; i < maxOrderLines+5; i++ {
		long.Units = append(long.Units, artifact.Unit{Actor: "a", Unit: i, SQL: []string{fmt.Sprintf("SELECT %d", i)}, Completed: true})
		long.Schedule.Decisions = append(long.Schedule.Decisions, artifact.Decision{Release: []artifact.UnitRef{{Actor: "a", Unit: i}}})
	}
	b.Reset()
	printOrder(&b, long, "my dir/x.json")
	if !strings.Contains(b.String(), "... 5 more; all of them: interleave trace 'my dir/x.json'") || strings.Contains(b.String(), fmt.Sprintf("SELECT %d\n", maxOrderLines)) {
		t.Errorf("long order not cut at %d lines:\n%s", maxOrderLines, b.String())
	}
}

func ptr(n int64) *int64 { return &n }

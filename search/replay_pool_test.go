package search

import (
	"errors"
	"testing"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/sched"
)

// With a pool, a statement preparation may be pending before its recorded
// turn. The scheduler then offers it alone (a preparation executes
// nothing, so it is released first), and an exact replay that waited for
// the recorded release would wait forever: it releases the preparation
// ahead of its turn and skips its recorded decision later.
// TestPoolIsScheduledAndReplayedTenTimes failed this way now and then
// under load (bob's recorded first command never became a candidate).
func TestExactReplayOfAPoolReleasesAnEarlyPreparation(t *testing.T) {
	names := []string{"a", "b"}
	ref := func(actor string, unit int, h uint64) artifact.UnitRef {
		return artifact.UnitRef{Actor: actor, Unit: unit, Hash: artifact.HashString(h)}
	}
	a0, b0, b1 := ref("a", 0, 10), ref("b", 0, 20), ref("b", 1, 21)
	rec := &artifact.Artifact{
		Limits: artifact.Limits{Connections: "multi-producer"},
		Units: []artifact.Unit{
			{Actor: "a", Unit: 0, Hash: a0.Hash},
			{Actor: "b", Unit: 0, Hash: b0.Hash, Prepare: true},
			{Actor: "b", Unit: 1, Hash: b1.Hash},
		},
	}
	for _, r := range []artifact.UnitRef{a0, b0, b1} {
		rec.Schedule.Decisions = append(rec.Schedule.Decisions, artifact.Decision{Release: []artifact.UnitRef{r}, Candidates: []artifact.UnitRef{r}})
	}
	cand := func(actor, unit int, h uint64, prepare bool) sched.Candidate {
		return sched.Candidate{Ref: sched.UnitRef{Actor: actor, Unit: unit}, Hash: h, Prepare: prepare}
	}
	p := NewExactPolicy(rec, names)
	// Step 0: b's preparation is pending first, alone; the recording
	// released a's command here and b's preparation one step later.
	if picks, err := p.Choose(0, []sched.Candidate{cand(1, 0, 20, true)}); err != nil || len(picks) != 1 || picks[0] != 0 {
		t.Fatalf("step 0: %v %v; want b's preparation released ahead of its turn", picks, err)
	}
	if picks, err := p.Choose(1, []sched.Candidate{cand(0, 0, 10, false), cand(1, 1, 21, false)}); err != nil || len(picks) != 1 || picks[0] != 0 {
		t.Fatalf("step 1: %v %v; want a's command, the recorded first release", picks, err)
	}
	if picks, err := p.Choose(2, []sched.Candidate{cand(1, 1, 21, false)}); err != nil || len(picks) != 1 || picks[0] != 0 {
		t.Fatalf("step 2: %v %v; want b's command (the preparation's recorded decision skipped)", picks, err)
	}
	var mm *Mismatch
	if _, err := p.Choose(3, []sched.Candidate{cand(0, 1, 11, false)}); !errors.As(err, &mm) {
		t.Fatalf("step 3: %v; want the recording's end", err)
	}

	// A preparation the recording does not release later is not taken
	// early: the replay waits for the recorded release, then gives up.
	p = NewExactPolicy(rec, names)
	if _, err := p.Choose(0, []sched.Candidate{cand(1, 0, 99, true)}); err == nil {
		t.Fatal("an unrecorded preparation was released")
	}
	// Without a pool nothing changes: the pending set must be the recorded one.
	rec.Limits.Connections = "single"
	p = NewExactPolicy(rec, names)
	if _, err := p.Choose(0, []sched.Candidate{cand(1, 0, 20, true)}); !errors.As(err, &mm) {
		t.Fatalf("single-producer: %v; want a mismatch", err)
	}
}

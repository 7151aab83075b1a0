package artifact_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/explain"
)

// lostUpdateRecord is a lost update between the counter's two actors, at
// steps of its 8 decisions.
func lostUpdateRecord() *explain.Record {
	return &explain.Record{
		Anomaly: explain.Anomaly{Name: explain.LostUpdate, Adya: "G-single", Sentence: "lost update: alice:1 read counter (id=1) ..."},
		Cycle: []explain.Edge{
			{From: "alice:1", To: "bob:1", Kind: explain.RW, Relation: "public.counter", Key: "id=1", FromStep: 2, ToStep: 5, CommitStep: 7},
			{From: "bob:1", To: "alice:1", Kind: explain.WW, Relation: "public.counter", Key: "id=1", FromStep: 5, ToStep: 6},
		},
		CriticalPair: &explain.Pair{Found: true, First: 2, Second: 7, FirstActor: "alice", SecondActor: "bob", FirstSQL: "SELECT", SecondSQL: "COMMIT",
			Tried: []explain.Trial{{First: 2, Second: 7, Outcome: "pass"}}},
		Levels: []explain.LevelRun{{Level: "repeatable read", Outcome: "pass", Held: true,
			Errors: []explain.LevelError{{Actor: "bob", Step: 6, SQL: "UPDATE", SQLState: "40001"}}}},
		Fix: &explain.Fix{Class: explain.FixRepeatableRead, Advice: "REPEATABLE READ prevents this if the code retries on 40001"},
	}
}

func counter(t *testing.T) *artifact.Artifact {
	t.Helper()
	data, err := os.ReadFile("testdata/counter-failure.json")
	if err != nil {
		t.Fatal(err)
	}
	a, err := artifact.Decode(data)
	if err != nil {
		t.Fatalf("an artifact written before explanations existed no longer loads: %v", err)
	}
	if a.Explanation != nil {
		t.Fatal("an artifact without an explanation decoded with one")
	}
	return a
}

// TestExplanationRoundTrip: an artifact keeps its explanation through
// Encode and Decode.
func TestExplanationRoundTrip(t *testing.T) {
	a := counter(t)
	a.Explanation = lostUpdateRecord()
	data, err := artifact.Encode(a)
	if err != nil {
		t.Fatal(err)
	}
	b, err := artifact.Decode(data)
	if err != nil {
		t.Fatalf("an artifact with a valid explanation is refused: %v", err)
	}
	x := b.Explanation
	if x == nil || x.Anomaly != a.Explanation.Anomaly || len(x.Cycle) != 2 || x.Cycle[0] != a.Explanation.Cycle[0] || !x.CriticalPair.Found || x.Fix.Class != explain.FixRepeatableRead {
		t.Fatalf("decoded explanation %+v", x)
	}
	// No cycle: "no dependency cycle between transactions".
	a.Explanation = &explain.Record{Anomaly: explain.Anomaly{Sentence: explain.NoCycle}, Cycle: []explain.Edge{}}
	if data, err = artifact.Encode(a); err != nil {
		t.Fatal(err)
	}
	if _, err := artifact.Decode(data); err != nil {
		t.Fatalf("an explanation with no cycle is refused: %v", err)
	}
}

// TestHostileExplanationIsRefused: every value outside what explain gives,
// and every list over its bound, is refused as ErrInvalid.
func TestHostileExplanationIsRefused(t *testing.T) {
	long := strings.Repeat("x", artifact.MaxText+1)
	for name, breakIt := range map[string]func(x *explain.Record){
		"unknown anomaly":           func(x *explain.Record) { x.Anomaly.Name = "<script>alert(1)</script>" },
		"unknown phenomenon":        func(x *explain.Record) { x.Anomaly.Adya = "G9" },
		"a name without a cycle":    func(x *explain.Record) { x.Cycle = nil },
		"a cycle without a name":    func(x *explain.Record) { x.Anomaly.Name, x.Anomaly.Adya = "", "" },
		"a sentence over the limit": func(x *explain.Record) { x.Anomaly.Sentence = long },
		"unknown dependency kind":   func(x *explain.Record) { x.Cycle[0].Kind = "zz" },
		"an unknown actor's transaction": func(x *explain.Record) {
			x.Cycle[1].To = "mallory:1"
		},
		"a transaction numbered 0":    func(x *explain.Record) { x.Cycle[0].From = "alice:0" },
		"a transaction that is text":  func(x *explain.Record) { x.Cycle[0].From = "alice" },
		"a step past the schedule":    func(x *explain.Record) { x.Cycle[0].ToStep = 8 },
		"a negative step":             func(x *explain.Record) { x.Cycle[0].FromStep = -1 },
		"a commit step past the end":  func(x *explain.Record) { x.Cycle[0].CommitStep = 1 << 40 },
		"a key over the limit":        func(x *explain.Record) { x.Cycle[0].Key = long },
		"a cycle over the limit":      func(x *explain.Record) { x.Cycle = make([]explain.Edge, artifact.MaxCycle+1) },
		"negative unknown commands":   func(x *explain.Record) { x.Unknown = -1 },
		"a pair of an unknown actor":  func(x *explain.Record) { x.CriticalPair.SecondActor = "mallory" },
		"a pair past the schedule":    func(x *explain.Record) { x.CriticalPair.Second = 99 },
		"a reversal's unknown result": func(x *explain.Record) { x.CriticalPair.Tried[0].Outcome = "maybe" },
		"too many reversals": func(x *explain.Record) {
			x.CriticalPair.Tried = make([]explain.Trial, artifact.MaxTrials+1)
		},
		"an unknown level":         func(x *explain.Record) { x.Levels[0].Level = "chaos" },
		"a level's unknown result": func(x *explain.Record) { x.Levels[0].Outcome = "" },
		"a bad SQLSTATE":           func(x *explain.Record) { x.Levels[0].Errors[0].SQLState = "4000'" },
		"a level error of nobody":  func(x *explain.Record) { x.Levels[0].Errors[0].Actor = "" },
		"too many level runs": func(x *explain.Record) {
			x.Levels = append(x.Levels, x.Levels[0], x.Levels[0], x.Levels[0], x.Levels[0])
		},
		"unknown fix class":        func(x *explain.Record) { x.Fix.Class = "pray" },
		"advice over the limit":    func(x *explain.Record) { x.Fix.Advice = long },
		"too many notes":           func(x *explain.Record) { x.Notes = make([]string, artifact.MaxNotes+1) },
		"a note over the limit":    func(x *explain.Record) { x.Notes = []string{long} },
		"SQL of the pair too long": func(x *explain.Record) { x.CriticalPair.FirstSQL = long },
	} {
		a := counter(t)
		a.Explanation = lostUpdateRecord()
		breakIt(a.Explanation)
		if err := artifact.Validate(a); !errors.Is(err, artifact.ErrInvalid) || !strings.Contains(err.Error(), "explanation") {
			t.Errorf("%s: Validate returned %v; want an ErrInvalid about the explanation", name, err)
		}
		if err := artifact.ValidateExplanation(a.Explanation, a); !errors.Is(err, artifact.ErrInvalid) {
			t.Errorf("%s: ValidateExplanation returned %v; want ErrInvalid", name, err)
		}
		data, err := artifact.Encode(a)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := artifact.Decode(data); !errors.Is(err, artifact.ErrInvalid) {
			t.Errorf("%s: Decode returned %v; want ErrInvalid", name, err)
		}
	}
}

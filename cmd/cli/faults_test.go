package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/engine"
	"github.com/pginterleave/interleave/search"
)

// The summary and --json count faulted attempts, the failing order marks
// the faulted command, and merging shards adds the counts up.
func TestFaultsAreCountedAndMarked(t *testing.T) {
	a := &artifact.Artifact{
		Scenario:    artifact.Scenario{Name: "payment", Actors: []string{"checkout"}},
		Fingerprint: &artifact.Fingerprint{Faults: "lost-reply"},
		Units:       []artifact.Unit{{Actor: "checkout", Conn: 0, Unit: 3, SQL: []string{"commit"}, ReleaseStep: 0, Completed: true, Fault: "lost-reply"}},
		Schedule:    artifact.Schedule{Decisions: []artifact.Decision{{Step: 0, Release: []artifact.UnitRef{{Actor: "checkout", Unit: 3}}, Choice: true, Fault: "lost-reply"}}},
	}
	r := &engine.Result{Scenario: "payment", Outcome: engine.OutcomeViolation, Message: "charged twice", Artifact: a,
		Summary: &search.Summary{Strategy: search.FIFO, Attempted: 10, Completed: 10, Failures: 1, FaultAttempts: 7, StopReason: search.StopFailure}}
	var b strings.Builder
	PrintExplore(&b, r)
	for _, want := range []string{"Faults: 7 of 10 attempts injected a fault (lost-reply).", "fault lost-reply at checkout's command 3", "[FAULT lost-reply: it ran, its reply was lost with the connection]"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	dir := t.TempDir()
	var paths []string
	for k := 1; k <= 2; k++ {
		f := Summarize(r)
		if f.FaultAttempts != 7 || f.Faults != "lost-reply" {
			t.Fatalf("--json faults %q, faultAttempts %d", f.Faults, f.FaultAttempts)
		}
		f.Shard, f.Shards = k, 2
		data, _ := json.Marshal(f)
		p := filepath.Join(dir, string(rune('0'+k))+".json")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	m, err := MergeSummaries(paths)
	if err != nil {
		t.Fatal(err)
	}
	if m.Summary.FaultAttempts != 14 || m.Summary.Faults != "lost-reply" {
		t.Fatalf("merged faults %q, faultAttempts %d; want lost-reply, 14", m.Summary.Faults, m.Summary.FaultAttempts)
	}
}

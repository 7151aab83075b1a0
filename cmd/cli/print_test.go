package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/engine"
	"github.com/pginterleave/interleave/search"
)

// What an artifact does not keep in full is said in the summary.
func TestSummarySaysWhatWasCut(t *testing.T) {
	a := &artifact.Artifact{Cut: []string{"the wire capture (300000000 bytes) is over the limit of 256 MiB and was not kept"}}
	var b strings.Builder
	PrintExplore(&b, &engine.Result{Scenario: "s", Outcome: engine.OutcomeViolation, Message: "m", Artifact: a, Saved: "f.json"})
	PrintReplay(&b, &engine.ReplayResult{Scenario: "s", Outcome: engine.OutcomeViolation, Message: "m", Artifact: a, PairStep: -1})
	want := "Not kept in full (limits: docs/reliability.md): the wire capture (300000000 bytes) is over the limit of 256 MiB and was not kept.\n"
	if strings.Count(b.String(), want) != 2 {
		t.Fatalf("the summaries do not say what was cut:\n%s", b.String())
	}
}

// A search that went on past its failures (--keep-going) and was then
// stopped by a harness error says so, and why, beside the failure it
// reports: it did not run its budget.
func TestSummarySaysAHarnessErrorStoppedTheSearch(t *testing.T) {
	stop := errors.New("reset the attempt database: connection refused")
	r := &engine.Result{Scenario: "s", Outcome: engine.OutcomeViolation, Message: "m",
		Summary: &search.Summary{Attempted: 56, Completed: 55, Failures: 51, StopReason: search.StopHarness, StopErr: stop}}
	var b strings.Builder
	PrintExplore(&b, r)
	if want := "The search was stopped by a harness error after 56 attempts: reset the attempt database: connection refused.\n"; !strings.Contains(b.String(), want) {
		t.Fatalf("the summary does not say why the search stopped:\n%s", b.String())
	}
	if f := Summarize(r); f.StopError != stop.Error() {
		t.Fatalf("JSON summary: stopError %q", f.StopError)
	}
}

// TestWriteJSONEscapesControlAndBidi: run, replay and minimize's --json
// escape C1 controls and bidirectional overrides (a scenario name or an
// actor's error can hold them), as the other commands do.
func TestWriteJSONEscapesControlAndBidi(t *testing.T) {
	var b strings.Builder
	writeJSON(&b, map[string]string{"message": "a\u009bb\u202ec"})
	out := b.String()
	if strings.ContainsRune(out, '\u009b') || strings.ContainsRune(out, '\u202e') || !strings.Contains(out, `\u009b`) || !strings.Contains(out, `\u202e`) {
		t.Fatalf("not escaped: %q", out)
	}
}

// TestPassWithPairsSaysItIsASample: a pass whose plans ended with pairs
// (PostgreSQL's own interleaving of two statements) says it is a sample;
// a pass without pairs does not.
func TestPassWithPairsSaysItIsASample(t *testing.T) {
	for _, retries := range []int{0, 27} {
		r := &engine.Result{Scenario: "s", Outcome: engine.OutcomePass,
			Summary: &search.Summary{Attempted: 40, Completed: 40, StopReason: search.StopExhausted, Retries: retries}}
		var b strings.Builder
		PrintExplore(&b, r)
		said := strings.Contains(b.String(), "for pairs this pass is a sample, not a proof")
		if said != (retries > 0) {
			t.Errorf("retries %d: said it is a sample: %v\n%s", retries, said, b.String())
		}
	}
}

// TestRerunsAreCounted: plans run again after a wrong deadlock victim are
// said in the text summary, and only then.
func TestRerunsAreCounted(t *testing.T) {
	for _, reruns := range []int{0, 3} {
		r := &engine.Result{Scenario: "s", Outcome: engine.OutcomePass,
			Summary: &search.Summary{Attempted: 40, Completed: 40, StopReason: search.StopExhausted, Reruns: reruns}}
		var b strings.Builder
		PrintExplore(&b, r)
		said := strings.Contains(b.String(), "Reruns: 3 extra runs")
		if said != (reruns > 0) {
			t.Errorf("reruns %d: said %v\n%s", reruns, said, b.String())
		}
	}
}

package cli

import (
	"strings"
	"testing"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/engine"
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

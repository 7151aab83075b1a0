package interleave

import (
	"bytes"
	"context"
	"testing"
	"time"
)

func TestExploreCounter(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := Explore(ctx, counterScenario(false), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	res.Print(&out)
	t.Log("\n" + out.String())
	if res.Outcome != OutcomeViolation || res.Summary.Attempted != 1 {
		t.Fatalf("counter: outcome %s after %d attempts; want a violation on the first attempt", res.Outcome, res.Summary.Attempted)
	}
	res, err = Explore(ctx, counterScenario(true), Options{})
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	res.Print(&out)
	t.Log("\n" + out.String())
	if res.Outcome != OutcomePass || res.Summary.Attempted != 6 || !res.Summary.Exhausted() {
		t.Fatalf("counter-fixed: outcome %s after %d attempts (exhausted %v); want a pass after all 6 orders", res.Outcome, res.Summary.Attempted, res.Summary.Exhausted())
	}
}

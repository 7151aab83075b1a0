package interleave

import (
	"context"
	"testing"
	"time"
)

func TestSingleAttemptFindsLostUpdate(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e, err := openEnv(ctx, (&Options{}).withDefaults(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer e.close()
	w, err := e.newWorker(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer w.close(ctx)
	sc := counterScenario(false)
	for i := 0; i < 3; i++ {
		r := w.run(ctx, &sc, nil)
		t.Logf("outcome %s %q in %v; %d decisions", r.Outcome, r.Message, r.Duration, len(r.Sched.Decisions))
		for _, u := range r.Sched.Units {
			t.Logf("  unit %v %s step %d tags %v tx %c", u.Ref, u.Types, u.ReleaseStep, u.Tags, u.TxStatus)
		}
		if r.Outcome != OutcomeViolation {
			t.Fatalf("attempt %d: outcome %s, want violation", i, r.Outcome)
		}
	}
}

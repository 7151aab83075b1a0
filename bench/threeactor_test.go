package bench

import (
	"context"
	"flag"
	"testing"
	"time"

	"github.com/pginterleave/interleave"
)

var (
	threeActor      = flag.Bool("three-actor", false, "find the four three-actor bugs of issue 21 and prove their repairs with default options (2 workers), timing each")
	threeActorFresh = flag.Bool("three-actor-fresh", false, "with -three-actor: a new backend for every actor connection (--fresh-sessions)")
	threeActorOwn   = flag.Bool("three-actor-own", false, "with -three-actor: the second repair of each kind (OwnThreeActorRepairs) instead of the issue's four")
	threeActorW     = flag.Int("three-actor-workers", 2, "with -three-actor: workers per search")
)

// TestThreeActorRepairs finds each bug of ThreeActorRepairs and proves its
// repair: every order explored, no violation. Timings are reported, not
// asserted; run with -three-actor -v.
func TestThreeActorRepairs(t *testing.T) {
	if !*threeActor {
		t.Skip("a measurement: run with -three-actor")
	}
	races := ThreeActorRepairs()
	if *threeActorOwn {
		races = OwnThreeActorRepairs()
	}
	for _, r := range races {
		t.Run(r.Name, func(t *testing.T) {
			o := interleave.Options{Server: interleave.ServerOptions{Use: server}, Search: interleave.SearchOptions{Workers: *threeActorW}}
			o.Proxy.FreshSessions = *threeActorFresh
			start := time.Now()
			res, err := interleave.Explore(context.Background(), r.Bug, o)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Outcome.Failed() {
				t.Fatalf("bug not found: %s after %d attempts: %s", res.Outcome, res.Summary.Attempted, res.Message)
			}
			t.Logf("bug found after %d attempts in %v: %s", res.Summary.Attempted, time.Since(start).Round(time.Millisecond), res.Message)
			o.Search.MaxTime = 300 * time.Second
			start = time.Now()
			fix, err := interleave.Explore(context.Background(), r.Fix, o)
			if err != nil {
				t.Fatal(err)
			}
			s := fix.Summary
			t.Logf("repair: %s, %s: %d orders in %v (diverged %d, reruns %d, pending %d, victim choices %d, alternatives %d, queued %d, asleep %d)",
				fix.Outcome, s.StopReason, s.Attempted, time.Since(start).Round(time.Millisecond), s.Diverged, s.Reruns, s.Pending, s.VictimChoices, s.Alternatives, s.Queued, s.Asleep)
			if fix.Outcome != interleave.OutcomePass || !s.Exhausted() {
				t.Errorf("repair not proved: %s: %s", fix.Outcome, fix.Message)
			}
		})
	}
}

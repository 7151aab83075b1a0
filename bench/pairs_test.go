package bench

import (
	"context"
	"flag"
	"testing"

	"github.com/pginterleave/interleave"
)

var pairRuns = flag.Int("pair-runs", 3, "searches of the sleep-free one-statement race")

// TestSleepFreeOneStatementRace: two actors each run one INSERT ... SELECT
// ... WHERE NOT EXISTS, with no sleep in the SQL; overlap pairs must find the
// duplicate and a replay must reproduce it. The rates are logged (the
// benchmark runs 20 searches, -pair-runs 20); the test requires every
// search to find it.
func TestSleepFreeOneStatementRace(t *testing.T) {
	var race Race
	for _, r := range Races() {
		if r.Name == "insert-where-not-exists" {
			race = r
		}
	}
	found, reproduced, replays := 0, 0, 0
	for i := 0; i < *pairRuns; i++ {
		o := interleave.Options{Server: interleave.ServerOptions{Use: server}, Search: interleave.SearchOptions{Workers: 1, MaxAttempts: 200}}
		o.Search.Overlap = "pairs"
		res, err := interleave.Explore(context.Background(), race.Bug, o)
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != interleave.OutcomeViolation {
			t.Logf("search %d: %s after %d attempts", i+1, res.Outcome, res.Summary.Attempted)
			continue
		}
		found++
		t.Logf("search %d: found at attempt %d", i+1, res.Summary.Attempted)
		for k := 0; k < 20; k++ {
			r, err := interleave.Replay(context.Background(), race.Bug, res.Artifact, interleave.ReplayOptions{Options: o})
			if err != nil {
				t.Fatal(err)
			}
			replays++
			if r.SameFailure {
				reproduced++
			}
		}
	}
	t.Logf("found in %d of %d searches; %d of %d replays reproduced the failure", found, *pairRuns, reproduced, replays)
	if found < *pairRuns {
		t.Errorf("the race was found in %d of %d searches", found, *pairRuns)
	}
}

package regression

import (
	"testing"

	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/interleavetest"
)

func TestMain(m *testing.M) { interleavetest.Main(m) }

// TestCounterEveryOrder searches every order of the two increments: the
// 2x2 counter has 6, and the reduction runs one of each class of
// equivalent orders (swaps of commands that do not affect each other).
func TestCounterEveryOrder(t *testing.T) {
	var all interleave.Options
	if err := all.Search.Reduction.Set("none"); err != nil {
		t.Fatal(err)
	}
	res := interleavetest.Explore(t, Scenario(), all)
	if res.Summary.Attempted != 6 || !res.Summary.Exhausted() {
		t.Fatalf("explored %d orders (exhausted %v); the 2x2 counter has 6", res.Summary.Attempted, res.Summary.Exhausted())
	}
	res = interleavetest.Explore(t, Scenario(), interleave.Options{})
	if res.Summary.Attempted < 2 || res.Summary.Attempted > 6 || !res.Summary.Exhausted() {
		t.Fatalf("reduced: explored %d orders (exhausted %v); want between 2 and 6", res.Summary.Attempted, res.Summary.Exhausted())
	}
}

// TestCounterLostUpdateRegression replays the lost update recorded from the
// first version of Increment. It failed until the repair.
func TestCounterLostUpdateRegression(t *testing.T) {
	res := interleavetest.Replay(t, Scenario(), "testdata/interleave/counter.json", interleave.Options{})
	if !res.Guided || res.Followed != res.Of || res.Of != 4 {
		t.Fatalf("guided replay followed %d of %d recorded commands; want all 4 of the recorded order", res.Followed, res.Of)
	}
}

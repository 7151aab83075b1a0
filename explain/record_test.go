package explain

import "testing"

// TestAnomalyLine: the summary's line names the anomaly and Adya's
// phenomenon once, each sentence's qualifier kept.
func TestAnomalyLine(t *testing.T) {
	for _, c := range []struct {
		a    Anomaly
		want string
	}{
		{Anomaly{Name: LostUpdate, Adya: "G-single", Sentence: "lost update: bob:1 read x at step 6 (bob:1 -> alice:1 -> bob:1)"},
			"Anomaly: lost update (Adya G-single): bob:1 read x at step 6 (bob:1 -> alice:1 -> bob:1)."},
		{Anomaly{Name: ReadSkew, Adya: "G-single", Sentence: "read skew (non-repeatable read): report:1 read x"},
			"Anomaly: read skew (non-repeatable read; Adya G-single): report:1 read x."},
		{Name(nil, nil), "Anomaly: none: " + Name(nil, nil).Sentence + "."},
	} {
		if got := c.a.Line(); got != c.want {
			t.Errorf("Line() = %q\nwant      %q", got, c.want)
		}
	}
}

// TestRecordIsACopy: what an artifact keeps does not change with the
// explanation it was taken from.
func TestRecordIsACopy(t *testing.T) {
	x := &Explanation{Cycle: []Edge{{From: "a:1"}}, CriticalPair: &Pair{Tried: []Trial{{First: 1}}}, Fix: &Fix{Class: FixLocking}, Notes: []string{"n"}}
	r := x.Record()
	x.Cycle[0].From, x.CriticalPair.Tried[0].First, x.Fix.Class, x.Notes[0] = "b:1", 2, FixRetry, "m"
	if r.Cycle[0].From != "a:1" || r.CriticalPair.Tried[0].First != 1 || r.Fix.Class != FixLocking || r.Notes[0] != "n" {
		t.Fatalf("the record changed with the explanation: %+v", r)
	}
}

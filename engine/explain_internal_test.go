package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pginterleave/interleave/artifact"
)

// TestReversedMovesTheLaterCommandWithItsSession: the later command moves
// before the earlier one together with the commands of its own session
// between them; everything else keeps its order.
func TestReversedMovesTheLaterCommandWithItsSession(t *testing.T) {
	rec := &artifact.Artifact{}
	order := []string{"a0", "b0", "a1", "b1", "a2", "b2", "a3"}
	count := map[string]int{}
	for step, name := range order {
		actor := map[byte]string{'a': "alice", 'b': "bob"}[name[0]]
		ref := artifact.UnitRef{Actor: actor, Unit: count[actor]}
		count[actor]++
		rec.Schedule.Decisions = append(rec.Schedule.Decisions, artifact.Decision{Step: step, Release: []artifact.UnitRef{ref}})
		rec.Units = append(rec.Units, artifact.Unit{Actor: actor, Unit: ref.Unit, ReleaseStep: step})
	}
	text := func(rs []artifact.UnitRef) string {
		var s []string
		for _, r := range rs {
			s = append(s, fmt.Sprintf("%c%d", r.Actor[0], r.Unit))
		}
		return strings.Join(s, " ")
	}
	for _, c := range []struct {
		first, second int
		want          string
	}{
		{1, 4, "a0 a1 a2 b0 b1 b2 a3"}, // a2 (step 4) with a1 (step 2) before b0 (step 1)
		{2, 3, "a0 b0 b1 a1 a2 b2 a3"},
		{0, 1, "b0 a0 a1 b1 a2 b2 a3"},
	} {
		got, ok := reversed(rec, c.first, c.second)
		if !ok || text(got) != c.want {
			t.Errorf("reversed(%d, %d) = %s (%v), want %s", c.first, c.second, text(got), ok, c.want)
		}
	}
	if _, ok := reversed(rec, 0, 2); ok {
		t.Error("two commands of one session were reversed")
	}
}

package interleave

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/sched"
)

// ErrIncompatible reports that a recording no longer applies.
var ErrIncompatible = errors.New("incompatible")

// mismatch is an exact replay's divergence at a step; the replay turns it
// into words with both versions of the commands.
type mismatch struct {
	step     int
	recorded []artifact.UnitRef
	now      []artifact.UnitRef
	what     string
}

func (m *mismatch) Error() string {
	return fmt.Sprintf("%v: step %d: %s", ErrIncompatible, m.step, m.what)
}

func (m *mismatch) Unwrap() error { return ErrIncompatible }

// exactPolicy follows a recording decision by decision and requires the
// pending units (names and byte hashes) to be the recorded ones.
type exactPolicy struct {
	rec   *artifact.Artifact
	names []string
}

func (p *exactPolicy) ref(c sched.Candidate) artifact.UnitRef {
	return artifact.UnitRef{Actor: p.names[c.Ref.Actor], Conn: c.Ref.Conn, Unit: c.Ref.Unit, Hash: hashString(c.Hash)}
}

func (p *exactPolicy) Choose(step int, cands []sched.Candidate) ([]int, error) {
	now := make([]artifact.UnitRef, len(cands))
	for i, c := range cands {
		now[i] = p.ref(c)
	}
	if step >= len(p.rec.Schedule.Decisions) {
		return nil, &mismatch{step: step, now: now, what: fmt.Sprintf("the recording ends after %d decisions, but more commands are pending now", len(p.rec.Schedule.Decisions))}
	}
	d := p.rec.Schedule.Decisions[step]
	if !sameRefs(d.Candidates, now) {
		return nil, &mismatch{step: step, recorded: d.Candidates, now: now, what: "different commands are pending than were recorded"}
	}
	var picks []int
	for _, r := range d.Release {
		for i, n := range now {
			if n == r {
				picks = append(picks, i)
			}
		}
	}
	if len(picks) != len(d.Release) {
		return nil, &mismatch{step: step, recorded: d.Release, now: now, what: "the recorded release is not pending"}
	}
	return picks, nil
}

func sameRefs(a, b []artifact.UnitRef) bool {
	if len(a) != len(b) {
		return false
	}
	key := func(rs []artifact.UnitRef) string {
		s := make([]string, len(rs))
		for i, r := range rs {
			s[i] = fmt.Sprintf("%s#%d.%d@%s", r.Actor, r.Conn, r.Unit, r.Hash)
		}
		sort.Strings(s)
		return strings.Join(s, " ")
	}
	return key(a) == key(b)
}

// guidedPolicy follows the recorded order of actors (connection lanes) over
// executing units against changed code: preparation units are released as
// they come; at each other decision it releases the next recorded lane's
// pending unit. When that lane has nothing pending it stops following and
// the default policy decides the rest.
type guidedPolicy struct {
	lanes     []laneKey // recorded order of executing releases
	pairs     []bool    // the recorded release at that position was a pair
	next      int
	following bool
	stopped   string // why following stopped early
	names     []string
}

type laneKey struct {
	actor string
	conn  int
}

func newGuidedPolicy(rec *artifact.Artifact, names []string) *guidedPolicy {
	prep := map[[3]any]bool{}
	for _, u := range rec.Units {
		if u.Prepare {
			prep[[3]any{u.Actor, u.Conn, u.Unit}] = true
		}
	}
	g := &guidedPolicy{following: true, names: names}
	for _, d := range rec.Schedule.Decisions {
		for _, r := range d.Release {
			if !prep[[3]any{r.Actor, r.Conn, r.Unit}] {
				g.lanes = append(g.lanes, laneKey{r.Actor, r.Conn})
			}
		}
	}
	return g
}

func (g *guidedPolicy) Choose(step int, cands []sched.Candidate) ([]int, error) {
	if len(cands) == 1 && cands[0].Prepare {
		return []int{0}, nil
	}
	if !g.following {
		return []int{0}, nil
	}
	if g.next >= len(g.lanes) {
		g.following = false
		return []int{0}, nil
	}
	want := g.lanes[g.next]
	for i, c := range cands {
		if g.names[c.Ref.Actor] == want.actor && c.Ref.Conn == want.conn {
			g.next++
			return []int{i}, nil
		}
	}
	g.following = false
	g.stopped = fmt.Sprintf("at step %d the recording releases %s's connection #%d, which has no command pending now", step, want.actor, want.conn)
	return []int{0}, nil
}

// Followed reports how many recorded executing releases were followed, of
// how many.
func (g *guidedPolicy) Followed() (int, int) { return g.next, len(g.lanes) }

package interleave

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
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
// pending units to be the recorded ones: same actor, same unit ordinal on
// its connection, same bytes, and the same bytes sent before on that
// connection. Connections are identified by that history rather than by
// their number, because a pool may open its connections in a different
// order on every run (multi-producer profile): two connections with the
// same history have sent identical bytes so far and are interchangeable,
// so no binding can ever be a false match.
type exactPolicy struct {
	rec      *artifact.Artifact
	names    []string
	recHist  map[[3]any]uint64 // recorded unit (actor, conn, unit) -> hash of its connection's earlier units
	liveHist map[laneKey]uint64
}

// unitKey is what makes two pending units the same.
type unitKey struct {
	actor   string
	unit    int
	hash    string
	history uint64
}

func chain(h uint64, unitHash string) uint64 {
	f := fnv.New64a()
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], h)
	f.Write(b[:])
	f.Write([]byte(unitHash))
	return f.Sum64()
}

func (p *exactPolicy) init() {
	p.recHist, p.liveHist = map[[3]any]uint64{}, map[laneKey]uint64{}
	byLane := map[laneKey][]artifact.Unit{}
	for _, u := range p.rec.Units {
		k := laneKey{u.Actor, u.Conn}
		byLane[k] = append(byLane[k], u)
	}
	for _, us := range byLane {
		sort.Slice(us, func(i, j int) bool { return us[i].Unit < us[j].Unit })
		var h uint64
		for _, u := range us {
			p.recHist[[3]any{u.Actor, u.Conn, u.Unit}] = h
			h = chain(h, u.Hash)
		}
	}
}

func (p *exactPolicy) Choose(step int, cands []sched.Candidate) ([]int, error) {
	if p.recHist == nil {
		p.init()
	}
	now := make([]artifact.UnitRef, len(cands))
	nowKeys := make([]unitKey, len(cands))
	for i, c := range cands {
		now[i] = artifact.UnitRef{Actor: p.names[c.Ref.Actor], Conn: c.Ref.Conn, Unit: c.Ref.Unit, Hash: hashString(c.Hash)}
		nowKeys[i] = unitKey{now[i].Actor, now[i].Unit, now[i].Hash, p.liveHist[laneKey{now[i].Actor, now[i].Conn}]}
	}
	if step >= len(p.rec.Schedule.Decisions) {
		return nil, &mismatch{step: step, now: now, what: fmt.Sprintf("the recording ends after %d decisions, but more commands are pending now", len(p.rec.Schedule.Decisions))}
	}
	d := p.rec.Schedule.Decisions[step]
	recKey := func(r artifact.UnitRef) unitKey {
		return unitKey{r.Actor, r.Unit, r.Hash, p.recHist[[3]any{r.Actor, r.Conn, r.Unit}]}
	}
	var recKeys []unitKey
	for _, r := range d.Candidates {
		recKeys = append(recKeys, recKey(r))
	}
	if !sameKeys(recKeys, nowKeys) {
		return nil, &mismatch{step: step, recorded: d.Candidates, now: now, what: "different commands are pending than were recorded"}
	}
	var picks []int
	taken := map[int]bool{}
	for _, r := range d.Release {
		k := recKey(r)
		for i, n := range nowKeys {
			if n == k && !taken[i] { // interchangeable when several match: take the first
				picks, taken[i] = append(picks, i), true
				break
			}
		}
	}
	if len(picks) != len(d.Release) {
		return nil, &mismatch{step: step, recorded: d.Release, now: now, what: "the recorded release is not pending"}
	}
	for _, i := range picks {
		lk := laneKey{now[i].Actor, now[i].Conn}
		p.liveHist[lk] = chain(p.liveHist[lk], now[i].Hash)
	}
	return picks, nil
}

func sameKeys(a, b []unitKey) bool {
	if len(a) != len(b) {
		return false
	}
	count := map[unitKey]int{}
	for _, k := range a {
		count[k]++
	}
	for _, k := range b {
		if count[k]--; count[k] < 0 {
			return false
		}
	}
	return true
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
	bound     map[laneKey]int  // live lane -> recorded connection
	taken     map[laneKey]bool // recorded lanes already bound
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
	if g.bound == nil {
		g.bound, g.taken = map[laneKey]int{}, map[laneKey]bool{}
	}
	pick := -1
	for i, c := range cands {
		lk := laneKey{g.names[c.Ref.Actor], c.Ref.Conn}
		if lk.actor != want.actor {
			continue
		}
		if b, ok := g.bound[lk]; ok {
			if b == want.conn {
				pick = i
				break
			}
			continue
		}
		if pick < 0 && !g.taken[want] {
			pick = i // an unbound live lane of the actor, bound below
		}
	}
	if pick >= 0 {
		lk := laneKey{g.names[cands[pick].Ref.Actor], cands[pick].Ref.Conn}
		if _, ok := g.bound[lk]; !ok {
			g.bound[lk], g.taken[want] = want.conn, true
		}
		g.next++
		return []int{pick}, nil
	}
	g.following = false
	g.stopped = fmt.Sprintf("at step %d the recording releases %s's connection #%d, which has no command pending now", step, want.actor, want.conn)
	return []int{0}, nil
}

// Followed reports how many recorded executing releases were followed, of
// how many.
func (g *guidedPolicy) Followed() (int, int) { return g.next, len(g.lanes) }

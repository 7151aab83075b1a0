package search

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"sort"
	"strings"
	"time"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/sched"
)

// ErrIncompatible reports that a recording no longer applies.
var ErrIncompatible = errors.New("incompatible")

// Mismatch is an exact replay's divergence at a step; the replay puts it in
// words with both versions of the commands.
type Mismatch struct {
	Step     int
	Recorded []artifact.UnitRef
	Now      []artifact.UnitRef
	What     string
}

func (m *Mismatch) Error() string {
	return fmt.Sprintf("%v: step %d: %s", ErrIncompatible, m.Step, m.What)
}

func (m *Mismatch) Unwrap() error { return ErrIncompatible }

// ExactPolicy follows a recording decision by decision and requires the
// pending units to be the recorded ones: same actor, same unit ordinal on
// its connection, same bytes, and the same bytes sent before on that
// connection. Connections are identified by that history rather than by
// their number, because a pool may open its connections in a different
// order on every run (multi-producer profile): two connections with the
// same history have sent identical bytes so far and are interchangeable,
// so no binding can ever be a false match.
type ExactPolicy struct {
	rec      *artifact.Artifact
	names    []string
	recHist  map[[3]any]uint64 // recorded unit (actor, conn, unit) -> hash of its connection's earlier units
	liveHist map[laneKey]uint64
	recAll   map[unitKey]bool // every recorded unit's key
	// waitStep and waitStart: since when the recorded release has been
	// awaited at this step (-1: not waiting).
	waitStep  int
	waitStart time.Time
	fault     stepFault // the recorded fault of the last release (faults.go)
	// With a pool (multi-producer), cur is the next recorded decision to
	// follow, and early the recorded decisions already followed ahead of
	// their turn: a statement preparation, which the scheduler releases
	// first and alone whenever one is pending (it executes nothing, so it
	// is no choice), may be pending at a step before the one that
	// recorded it. Without a pool, cur is the scheduler's step.
	cur   int
	early map[int]bool
}

// MaxPendingWait bounds how long an exact replay of a connection pool waits
// for a recorded unit to become pending: far above any scheduling delay,
// below an attempt's default deadline (30 s). The wait ends as soon as the
// unit is pending, so the bound costs time only when the recording no
// longer applies. 5 s was once not enough on a 2-core machine under a load
// average of 7 (a fresh-clone test run beside the fault soak and a fuzz
// campaign): a pool's goroutine sent nothing for that long.
const MaxPendingWait = 15 * time.Second

func (p *ExactPolicy) waitMore(step int) bool {
	if p.rec.Limits.Connections != "multi-producer" {
		return false
	}
	if p.waitStep != step {
		p.waitStep, p.waitStart = step, time.Now()
	}
	return time.Since(p.waitStart) < MaxPendingWait
}

// preparedEarly returns, for a pool whose one pending unit is a statement
// preparation (key), the later recorded decision that releases it ahead
// of its turn, or -1: when it is a preparation that the recorded decision cur does not
// release, and a later recorded decision, not yet followed, releases
// exactly it alone. Releasing it early changes nothing the server or the
// other actors see (a preparation executes nothing); waiting for the
// recorded release instead would wait forever, as the scheduler offers
// nothing else while a preparation is pending.
func (p *ExactPolicy) preparedEarly(cur int, key unitKey, recKey func(artifact.UnitRef) unitKey) int {
	ds := p.rec.Schedule.Decisions
	for _, r := range ds[cur].Release {
		if recKey(r) == key {
			return -1 // its turn: followed as recorded
		}
	}
	for later := cur + 1; later < len(ds); later++ {
		if !p.early[later] && len(ds[later].Release) == 1 && ds[later].Fault == "" && recKey(ds[later].Release[0]) == key {
			return later
		}
	}
	return -1
}

// follow records what the released units sent on their connections.
func (p *ExactPolicy) follow(now []artifact.UnitRef, picks []int) {
	for _, i := range picks {
		lk := laneKey{now[i].Actor, now[i].Conn}
		p.liveHist[lk] = chain(p.liveHist[lk], now[i].Hash)
	}
}

// pendingLater checks, for a pool, that every unit pending now is a recorded
// one that has not been released yet.
func (p *ExactPolicy) pendingLater(step int, now []artifact.UnitRef, nowKeys []unitKey, d artifact.Decision) error {
	for i, k := range nowKeys {
		if !p.recAll[k] {
			return &Mismatch{Step: step, Recorded: d.Candidates, Now: []artifact.UnitRef{now[i]}, What: "a command is pending that the recording does not have"}
		}
	}
	return nil
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

func (p *ExactPolicy) init() {
	p.recHist, p.liveHist, p.recAll, p.waitStep = map[[3]any]uint64{}, map[laneKey]uint64{}, map[unitKey]bool{}, -1
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
			p.recAll[unitKey{u.Actor, u.Unit, u.Hash, h}] = true
			h = chain(h, u.Hash)
		}
	}
}

// NewExactPolicy follows rec; names are the actors by index.
func NewExactPolicy(rec *artifact.Artifact, names []string) *ExactPolicy {
	return &ExactPolicy{rec: rec, names: names}
}

// Choose implements sched.Policy.
func (p *ExactPolicy) Choose(step int, cands []sched.Candidate) ([]int, error) {
	if p.recHist == nil {
		p.init()
	}
	now := make([]artifact.UnitRef, len(cands))
	nowKeys := make([]unitKey, len(cands))
	for i, c := range cands {
		now[i] = artifact.UnitRef{Actor: p.names[c.Ref.Actor], Conn: c.Ref.Conn, Unit: c.Ref.Unit, Hash: artifact.HashString(c.Hash)}
		nowKeys[i] = unitKey{now[i].Actor, now[i].Unit, now[i].Hash, p.liveHist[laneKey{now[i].Actor, now[i].Conn}]}
	}
	pool := p.rec.Limits.Connections == "multi-producer"
	cur := step
	if pool {
		for p.early[p.cur] {
			p.cur++
		}
		cur = p.cur
	}
	if cur >= len(p.rec.Schedule.Decisions) {
		return nil, &Mismatch{Step: step, Now: now, What: fmt.Sprintf("the recording ends after %d decisions, but more commands are pending now", len(p.rec.Schedule.Decisions))}
	}
	d := p.rec.Schedule.Decisions[cur]
	recKey := func(r artifact.UnitRef) unitKey {
		return unitKey{r.Actor, r.Unit, r.Hash, p.recHist[[3]any{r.Actor, r.Conn, r.Unit}]}
	}
	var recKeys []unitKey
	for _, r := range d.Candidates {
		recKeys = append(recKeys, recKey(r))
	}
	if pool {
		later := -1
		if len(cands) == 1 && cands[0].Prepare {
			later = p.preparedEarly(cur, nowKeys[0], recKey)
		}
		if later >= 0 {
			if p.early == nil {
				p.early = map[int]bool{}
			}
			p.early[later] = true
			p.waitStep = -1
			p.fault = stepFault{step, ""}
			p.follow(now, []int{0})
			return []int{0}, nil
		}
		// A pool's goroutines send on their own time, and quiescence waits
		// only a settle time for them: the pending set at a step may lack a
		// unit the recording had (wait for it) or hold one the recording saw
		// a step later (it stays held; the server sees nothing of it).
		// What must hold: every unit pending now is one the recording has,
		// with the same bytes after the same history, and the recorded
		// release is pending.
		if err := p.pendingLater(step, now, nowKeys, d); err != nil {
			return nil, err
		}
	} else if !sameKeys(recKeys, nowKeys) {
		return nil, &Mismatch{Step: step, Recorded: d.Candidates, Now: now, What: "different commands are pending than were recorded"}
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
		if p.waitMore(step) {
			return nil, sched.ErrWaitForMore
		}
		return nil, &Mismatch{Step: step, Recorded: d.Release, Now: now, What: "the recorded release is not pending"}
	}
	p.waitStep = -1
	p.fault = stepFault{step, d.Fault}
	if pool {
		p.cur++
	}
	p.follow(now, picks)
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

// SameRefs reports whether a and b name the same units, in any order.
func SameRefs(a, b []artifact.UnitRef) bool {
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

// GuidedPolicy follows the recorded order of actors (connection lanes) over
// executing units against changed code: preparation units are released as
// they come; at each other decision it releases the next recorded lane's
// pending unit. When that lane has nothing pending it stops following and
// the default policy decides the rest.
type GuidedPolicy struct {
	lanes     []laneKey // recorded order of executing releases
	pairs     []bool    // the recorded release at that position was a pair
	next      int
	following bool
	stopped   string // why following stopped early
	names     []string
	bound     map[laneKey]int  // live lane -> recorded connection
	taken     map[laneKey]bool // recorded lanes already bound
	faults    []string         // the recorded fault at each position of lanes
	fault     stepFault        // the fault of the last release (faults.go)
}

type laneKey struct {
	actor string
	conn  int
}

// NewGuidedPolicy follows rec's order of actors; names are the actors by index.
func NewGuidedPolicy(rec *artifact.Artifact, names []string) *GuidedPolicy {
	prep := map[[3]any]bool{}
	for _, u := range rec.Units {
		if u.Prepare {
			prep[[3]any{u.Actor, u.Conn, u.Unit}] = true
		}
	}
	g := &GuidedPolicy{following: true, names: names}
	for _, d := range rec.Schedule.Decisions {
		for _, r := range d.Release {
			if !prep[[3]any{r.Actor, r.Conn, r.Unit}] {
				g.lanes = append(g.lanes, laneKey{r.Actor, r.Conn})
				g.faults = append(g.faults, d.Fault)
			}
		}
	}
	return g
}

// Choose implements sched.Policy.
func (g *GuidedPolicy) Choose(step int, cands []sched.Candidate) ([]int, error) {
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
		g.fault = stepFault{step, g.faults[g.next]}
		g.next++
		return []int{pick}, nil
	}
	g.following = false
	g.stopped = fmt.Sprintf("at step %d the recording releases %s's connection #%d, which has no command pending now", step, want.actor, want.conn)
	return []int{0}, nil
}

// Stopped says why following stopped before the end of the recording
// ("" when it did not, or when the changed code sent fewer commands).
func (g *GuidedPolicy) Stopped() string { return g.stopped }

// Followed reports how many recorded executing releases were followed, of
// how many.
func (g *GuidedPolicy) Followed() (int, int) { return g.next, len(g.lanes) }

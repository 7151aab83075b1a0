package search

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"os"
	"slices"

	"github.com/pginterleave/interleave/sched"
)

// Partial-order reduction (source sets, after Abdulla, Aronis, Jonsson and
// Sagonas, "Optimal dynamic partial order reduction", POPL 2014): after an
// attempt, every race in its trace (two dependent events of different
// actors with no other path of dependence between them) asks that the
// state before the first event also be explored starting with an actor
// that can reverse the race; an actor already explored or queued there
// that can do so is enough. States are identified by the units released to
// reach them. docs/search.md states the dependence relation and why it is
// sound.

// porState is what the reduction knows of one state (a prefix of
// releases): the first moves explored from it and queued, each numbered in
// the order it was first known (sleep sets put to sleep the moves known
// before the one taken).
type porState struct {
	moves map[moveKey]int
}

// has reports whether move mk is explored or queued from the state.
func (s *porState) has(mk moveKey) bool { return s.moves[mk] > 0 }

// mark records move mk; it reports whether mk was new.
func (s *porState) mark(mk moveKey) bool {
	if s.moves[mk] > 0 {
		return false
	}
	s.moves[mk] = len(s.moves) + 1
	return true
}

// moveKey names a first move from a state: an actor, or a pair; f is the
// fault the actor's unit is released with (faults.go), if any.
type moveKey struct {
	a, b int
	f    sched.Fault
}

func single(actor int) moveKey { return moveKey{a: actor, b: -1} }

// faulted is actor's move with fault f.
func faulted(actor int, f sched.Fault) moveKey { return moveKey{a: actor, b: -1, f: f} }

// moveOf is the move decision d made.
func moveOf(d sched.Decision) moveKey {
	if len(d.Released) == 2 {
		return moveKey{a: d.Released[0].Actor, b: d.Released[1].Actor}
	}
	return faulted(d.Released[0].Actor, d.Fault)
}

// stateKey names a state: two independent 64-bit hashes (FNV-1a and
// SHA-256's first 8 bytes) of the releases that reach it. A collision would
// let the reduction take a move explored at one state for one explored at
// another, and lose behaviours; with 128 bits it would take about 2^64
// states to expect one.
type stateKey struct{ a, b uint64 }

// stateKeys hashes each prefix of the decisions' releases: keys[k] names the
// state before decision k. The deadlock-victim order is part of every
// state: the same releases under another order lead elsewhere.
func stateKeys(ds []sched.Decision, victims []int) []stateKey {
	keys := make([]stateKey, len(ds)+1)
	h := fnv.New64a()
	g := sha256.New()
	var b [12]byte
	write := func(p []byte) {
		h.Write(p)
		g.Write(p)
	}
	sum := func() stateKey {
		var out [sha256.Size]byte
		return stateKey{h.Sum64(), binary.BigEndian.Uint64(g.Sum(out[:0])[:8])}
	}
	for _, v := range victims {
		binary.BigEndian.PutUint32(b[0:], uint32(v))
		write(b[:4])
	}
	write([]byte{0xfe})
	keys[0] = sum()
	for k, d := range ds {
		for _, u := range d.Released {
			binary.BigEndian.PutUint32(b[0:], uint32(u.Actor))
			binary.BigEndian.PutUint32(b[4:], uint32(u.Conn))
			binary.BigEndian.PutUint32(b[8:], uint32(u.Unit))
			write(b[:])
		}
		if d.Fault != sched.NoFault {
			write([]byte("!" + string(d.Fault)))
		}
		write([]byte{0xff})
		keys[k+1] = sum()
	}
	return keys
}

// state returns (creating) the reduction's record of state key.
func (e *explorer) state(key stateKey) *porState {
	s := e.por[key]
	if s == nil {
		// The records count in the frontier's memory budget. Past it the
		// search stops, not exhaustive: forgetting records would queue
		// explored moves again, without end (plans are not deduplicated).
		if e.bytes+(len(e.por)+1)*porStateBytes > e.opts.FrontierBytes && len(e.por) > 0 && !e.porFull {
			e.porFull = true
			e.sum.PrunedByBytes++
			e.stop(StopMemory)
		}
		s = &porState{moves: map[moveKey]int{}}
		e.por[key] = s
	}
	return s
}

// porStateBytes estimates one state record: its map entry, key and a small
// map of moves.
const porStateBytes = 256

// expandReduced queues the alternatives the races of one attempt call for;
// e.mu held. It returns false when the attempt carries no trace (the
// caller then expands every alternative).
func (e *explorer) expandReduced(n *node, seq int, ds []sched.Decision, tr *Trace, behaviour string) bool {
	if tr == nil {
		e.sum.Unjudged++
		return false
	}
	e.sum.LockCorrections += tr.Corrections
	// A victim plan (and a plan below one) leaves the races before its
	// deadlock to the attempt that deadlocked when its events there are
	// that attempt's.
	shared := n.victimAfter > 0 && prefixHash(tr, n.victimAfter) == n.victimHash
	keys := stateKeys(ds, n.reducedVictims())
	for k, d := range ds {
		if len(d.Released) > 0 {
			e.state(keys[k]).mark(moveOf(d))
		}
	}
	first := firstEvents(tr)
	sleep, sleeping := e.sleepSets(ds, tr, keys, first)
	child := n.nextChild
	queue := func(k int, units []sched.UnitRef, fault sched.Fault, then []ThenStep) {
		if fault != sched.NoFault && faultsBefore(ds, k)+1 > e.opts.MaxFaults {
			return
		}
		if e.opts.MaxDepth > 0 && choicesBefore(ds, k)+1 > e.opts.MaxDepth {
			e.sum.PrunedByDepth++
			return
		}
		p := ChoicesOf(ds[:k])
		p.Choices = append(p.Choices, Choice{Step: ds[k].Step, Units: units, Fault: fault})
		p.Victims = n.reducedVictims()
		p.Then = then
		if len(units) == 1 && fault == sched.NoFault {
			p.Sleep = e.sleepAfter(k, units[0], ds, keys, tr, first, sleep)
		}
		path := append(append(make([]int32, 0, len(n.path)+1), n.path...), int32(child))
		c := &node{plan: p, depth: len(p.Choices), parentSeq: seq, child: child, path: path}
		if shared {
			// It runs this attempt up to its choice, and so the one
			// that deadlocked up to the earlier of the two.
			c.victimAfter = min(n.victimAfter, ds[k].Step)
			c.victimHash = prefixHash(tr, c.victimAfter)
		}
		child++
		if e.bytes+c.size() > e.opts.FrontierBytes {
			e.sum.PrunedByBytes++
			return
		}
		e.push(c)
		e.sum.Queued++
	}
	if debugReduction {
		dumpTrace(n, ds, tr)
	}
	for _, r := range withMovedStarts(tr, races(tr)) {
		i := &tr.Events[r.first]
		if debugReduction {
			fmt.Fprintf(os.Stderr, "  race %d(%s) -> %d(%s)\n", r.first, evName(&tr.Events[r.first]), r.second, evName(&tr.Events[r.second]))
		}
		if shared && tr.Events[r.second].Decision >= 0 && tr.Events[r.second].Decision < n.victimAfter {
			// Both units released before the deadlock whose victim this
			// plan changes: the attempt that deadlocked had this race,
			// and its alternatives were queued from there.
			e.sum.VictimShared++
			continue
		}
		k := i.Decision
		if k < 0 || k >= len(ds) {
			continue
		}
		st := e.state(keys[k])
		initials, v := e.initials(tr, r, ds[k].Candidates)
		guided := len(initials) > 0
		if len(initials) == 0 {
			// No actor can be shown to reverse the race from there: try
			// every one not yet explored (sound, not economical).
			for _, c := range ds[k].Candidates {
				initials = append(initials, c)
			}
		} else {
			// An initial explored or queued here, or asleep here (explored
			// from an earlier state and independent of everything since),
			// reverses the race already.
			done := false
			for _, c := range initials {
				if st.has(faulted(c.Ref.Actor, faultOf(tr, v, c.Ref))) {
					done = true
					break
				}
				if asleep(sleep, k, c.Ref) {
					e.sum.Asleep++
					done = true
					break
				}
			}
			if done {
				continue
			}
			initials = initials[:1]
		}
		for _, c := range initials {
			f := sched.NoFault
			if guided {
				f = faultOf(tr, v, c.Ref)
			}
			if c.Prepare || !st.mark(faulted(c.Ref.Actor, f)) {
				continue
			}
			var then []ThenStep
			if guided && !e.opts.SourceSetsOnly {
				then = reversal(tr, v, c.Ref)
			}
			if debugReduction {
				fmt.Fprintf(os.Stderr, "  queue at step %d: %v%s then %v\n", k, c.Ref, f, then)
			}
			queue(k, []sched.UnitRef{c.Ref}, f, then)
		}
	}
	if sleeping >= 0 {
		e.wakeAt(sleeping, ds, keys, sleep, queue)
	}
	if e.opts.Overlap == Pairs {
		e.queueDependentPairs(tr, ds, keys, queue)
	}
	n.nextChild = child
	if !e.sharing() {
		// A shard samples only the orders skipped in its own branches,
		// whose equivalents it runs itself (shard.go).
		e.noteSkipped(n, ds, keys, behaviour)
	}
	// What the unreduced search would have queued from this attempt.
	// (expandFaults counts the faults.)
	last := n.plan.lastStep()
	for _, d := range ds {
		if d.Step <= last {
			continue
		}
		if len(d.Candidates) > 1 {
			e.sum.Alternatives += len(d.Candidates) - 1
			if e.opts.Overlap == Pairs {
				e.sum.Alternatives += len(overlapPairs(d.Candidates))
			}
		}
	}
	return true
}

// faultOf is the fault unit u was released with among the events v (none
// when it is not there).
func faultOf(tr *Trace, v []int, u sched.UnitRef) sched.Fault {
	for _, k := range v {
		if ev := &tr.Events[k]; ev.Ref == u && ev.Kind != WaitEnd {
			return ev.Fault
		}
	}
	return sched.NoFault
}

// faultsBefore counts the faulted releases of ds before decision k.
func faultsBefore(ds []sched.Decision, k int) int {
	n := 0
	for _, d := range ds[:k] {
		if d.Fault != sched.NoFault {
			n++
		}
	}
	return n
}

func choicesBefore(ds []sched.Decision, k int) int {
	n := 0
	for _, d := range ds[:k] {
		if d.Choice {
			n++
		}
	}
	return n
}

// queueDependentPairs adds, at each state, the pair releases of two
// pending units of different actors that are dependent: a pair of
// independent units behaves as either order.
func (e *explorer) queueDependentPairs(tr *Trace, ds []sched.Decision, keys []stateKey, queue func(int, []sched.UnitRef, sched.Fault, []ThenStep)) {
	byRef := map[sched.UnitRef]*Event{}
	for i := range tr.Events {
		if ev := &tr.Events[i]; ev.Kind != WaitEnd {
			byRef[ev.Ref] = whole(tr, i)
		}
	}
	for k, d := range ds {
		for _, pr := range overlapPairs(d.Candidates) {
			a, b := d.Candidates[pr[0]], d.Candidates[pr[1]]
			x, y := byRef[a.Ref], byRef[b.Ref]
			if x != nil && y != nil && (!dependent(x, y) || (x.Atomic && y.Atomic)) {
				// Independent units behave as either order; so do two
				// atomic ones (two advisory lock calls: the lock manager
				// takes them one at a time), whose two orders the
				// sequential search explores as a race.
				continue
			}
			st := e.state(keys[k])
			if !st.mark(moveKey{a: a.Ref.Actor, b: b.Ref.Actor}) {
				continue
			}
			queue(k, []sched.UnitRef{a.Ref, b.Ref}, sched.NoFault, nil)
		}
	}
}

// race is a pair of trace events in a race: first happened before second.
type race struct{ first, second int }

// races lists the races of a trace: events i < j of different actors that
// are dependent, can both be pending at once, and have no chain of
// dependence between them through a third event.
func races(tr *Trace) []race {
	ev := tr.Events
	n := len(ev)
	words := (n + 63) / 64
	window := waitWindows(ev)
	before := happensBefore(ev, window)
	after := make([][]uint64, n) // after[i]: events that i happens before
	for i := range after {
		after[i] = make([]uint64, words)
	}
	for j := range ev {
		for i := 0; i < j; i++ {
			if before[j][i/64]&(1<<(i%64)) != 0 {
				after[i][j/64] |= 1 << (j % 64)
			}
		}
	}
	var out []race
	var held *holds
	var lockBefore [][]uint64
	for j := range ev {
		for i := 0; i < j; i++ {
			if ev[i].Actor == ev[j].Actor || ev[i].Decision == ev[j].Decision || !raceDependent(ev, window, i, j) {
				continue
			}
			if ev[j].WaitsOnHolds && (ev[j].Kind == Whole || ev[j].Kind == WaitStart && !ev[j].Failed) {
				if held == nil {
					held = newHolds(ev)
					lockBefore = happensBeforeExcept(ev, window, held)
				}
				if held.blocks(i, j) {
					// j released before i would have waited for i's
					// transaction and then read its rows again: that
					// order is this one. The race that matters is with
					// the command that took the lock (below).
					continue
				}
				// Without the pairs such waits make equivalent, i may be
				// in a race with j that the full relation chains through
				// its lock holder's end: the command that took the lock.
				chained := false
				for k := i + 1; k < j && !chained; k++ {
					chained = lockBefore[j][k/64]&(1<<(k%64)) != 0 && lockBefore[k][i/64]&(1<<(i%64)) != 0
				}
				if !chained {
					out = append(out, race{i, j})
				}
				continue
			}
			// A chain i -> k -> j through a third event k makes it no race.
			chained := false
			for w := 0; w < words && !chained; w++ {
				chained = before[j][w]&after[i][w] != 0
			}
			if !chained {
				out = append(out, race{i, j})
			}
		}
	}
	return out
}

// withMovedStarts adds, for each race whose first event is the end of a
// wait, the same race from the wait's start, when that start may move past
// its blocker's events (Event.Rechecked, Event.Queued: orderDependent makes
// it independent of some of them). The end of a wait is no decision: the
// race can be reversed at the decision that ended the wait only by holding
// that decision back, which is no reversal when the second event comes
// after it (the blocker's next command after its COMMIT). The equivalent
// order that releases the waiting unit after its blocker's events, where it
// does not wait, has the race at the unit's release; so must this one
// (generated seed 79029: an autocommit DELETE that waited was never run
// after its blocker's next statement).
func withMovedStarts(tr *Trace, rs []race) []race {
	ev := tr.Events
	var window map[int][2]int
	out := rs
	for _, r := range rs {
		e := &ev[r.first]
		if e.Kind != WaitEnd || len(e.Rechecked) == 0 && len(e.Queued) == 0 {
			continue
		}
		if window == nil {
			window = waitWindows(ev)
		}
		w, ok := window[r.first]
		if !ok || ev[w[0]].Actor == ev[r.second].Actor {
			continue
		}
		out = append(out, race{w[0], r.second})
	}
	return out
}

// holds follows the row locks each actor's open transaction holds, event
// by event (Event.Holds), for the statements that would wait for them
// (Event.WaitsOnHolds).
type holds struct {
	ev []Event
	// at[i]: the rows actor ev[i].Actor's transaction holds just before
	// event i; nil when not known (a global event or an error since the
	// transaction's last end).
	at []map[string]bool
	// end[i]: the event that ends the transaction of event i's actor (i
	// itself, or its next event with EndsTx), -1 when none does.
	end []int
}

func newHolds(ev []Event) *holds {
	h := &holds{ev: ev, at: make([]map[string]bool, len(ev)), end: make([]int, len(ev))}
	next := map[int]int{}
	for i := len(ev) - 1; i >= 0; i-- {
		if ev[i].EndsTx {
			next[ev[i].Actor] = i
		}
		h.end[i] = -1
		if k, ok := next[ev[i].Actor]; ok {
			h.end[i] = k
		}
	}
	cur := map[int]map[string]bool{}
	unknown := map[int]bool{}
	for i := range ev {
		a := ev[i].Actor
		if !unknown[a] {
			h.at[i] = cur[a]
		}
		switch {
		case ev[i].EndsTx:
			// Released at its end (a COMMIT that waited ends at WaitEnd;
			// its release has EndsTx cleared).
			delete(cur, a)
			delete(unknown, a)
		case ev[i].Global || ev[i].Failed || ev[i].Fault != sched.NoFault:
			// An error releases the block's locks; a global event (a
			// ROLLBACK TO SAVEPOINT, code not analysed) may.
			delete(cur, a)
			unknown[a] = true
		case ev[i].Kind == Whole || ev[i].Kind == WaitEnd:
			if len(ev[i].Holds) > 0 {
				m := map[string]bool{}
				for n := range cur[a] {
					m[n] = true
				}
				for _, n := range ev[i].Holds {
					m[n] = true
				}
				cur[a] = m
			}
		}
	}
	return h
}

// blocks reports whether event j (a statement that waits on held rows and
// reads them again) would have waited, released just before event i of
// another actor, for i's transaction: that transaction holds every row j
// touches before i. Then j released just before i is the same as j
// released after it: it waits behind the same holder and the same queue
// (i, holding the rows already, joins no queue for them), and reads the
// rows when its wait ends. Not when i is global (a LOCK TABLE could then
// wait for the relation lock j took before its row lock: a deadlock) or
// starts a wait of its own (a cycle could close at another command).
func (h *holds) blocks(i, j int) bool {
	x, y := &h.ev[i], &h.ev[j]
	if x.Actor == y.Actor || x.Global || x.Kind == WaitStart || !y.WaitsOnHolds || len(y.Rechecked) == 0 {
		return false
	}
	if y.Kind != Whole && (y.Kind != WaitStart || y.Failed) {
		return false
	}
	m := h.at[i]
	if m == nil {
		return false
	}
	// The holder's transaction must not write a row's relation as a whole
	// anywhere (an INSERT could put a new tuple under the key, which a
	// wait does not follow: case rows-wait-reinsert-held); its end says
	// what it wrote, and one that does not end in the trace is not known.
	if h.end[i] < 0 {
		return false
	}
	end := &h.ev[h.end[i]]
	for _, n := range h.ev[j].Rechecked {
		if !m[n] || writesWhole(end.TxWrites, n) {
			return false
		}
	}
	return true
}

// happensBeforeExcept is happensBefore without the pairs h.blocks.
func happensBeforeExcept(ev []Event, window map[int][2]int, h *holds) [][]uint64 {
	return closure(ev, func(i, j int) bool { return !h.blocks(i, j) && orderDependent(ev, window, i, j) })
}

// happensBefore returns, for each event j, the set of events that happen
// before it (bits by index): the transitive closure of program order and
// orderDependent.
func happensBefore(ev []Event, window map[int][2]int) [][]uint64 {
	return closure(ev, func(i, j int) bool { return orderDependent(ev, window, i, j) })
}

// closure is the transitive closure of program order and dep (i < j), as
// happensBefore returns it.
func closure(ev []Event, dep func(i, j int) bool) [][]uint64 {
	words := (len(ev) + 63) / 64
	before := make([][]uint64, len(ev))
	for j := range ev {
		before[j] = make([]uint64, words)
		for i := 0; i < j; i++ {
			if ev[i].Actor == ev[j].Actor || dep(i, j) {
				before[j][i/64] |= 1 << (i % 64)
				for w := range words {
					before[j][w] |= before[i][w]
				}
			}
		}
	}
	return before
}

// waitWindows maps each WaitStart and WaitEnd event to its unit's window:
// the indices of its start and end.
func waitWindows(ev []Event) map[int][2]int {
	starts := map[sched.UnitRef]int{}
	w := map[int][2]int{}
	for i := range ev {
		switch ev[i].Kind {
		case WaitStart:
			starts[ev[i].Ref] = i
		case WaitEnd:
			if s, ok := starts[ev[i].Ref]; ok {
				w[s] = [2]int{s, i}
				w[i] = [2]int{s, i}
			}
		}
	}
	return w
}

// inWindowOfBlocker reports whether event x is an event of an actor that
// unit w (one of its wait events) waited on, inside w's wait.
func inWindowOfBlocker(ev []Event, window map[int][2]int, w, x int) bool {
	win, ok := window[w]
	if !ok || x <= win[0] || x >= win[1] {
		return false
	}
	if len(ev[w].Blockers) != 1 || ev[w].Blockers[0] != ev[x].Actor {
		// Several blockers: the unit may have waited on them one after
		// the other, and which part of the window was whose is not
		// known (case locks-successive-blockers).
		return false
	}
	// The wait on a blocker ends at its transaction's end at the latest:
	// its next transaction is not during the wait.
	for k := win[0] + 1; k < x; k++ {
		if ev[k].Actor == ev[x].Actor && ev[k].EndsTx {
			return false
		}
	}
	return true
}

// queuedBehind reports whether event x is an event of an actor that unit w
// (its WaitStart) waited behind (Event.Queued), inside w's wait and in the
// transaction that actor was running when w began to wait.
func queuedBehind(ev []Event, window map[int][2]int, w, x int) bool {
	win, ok := window[w]
	if !ok || x <= win[0] || x >= win[1] || !slices.Contains(ev[w].Queued, ev[x].Actor) {
		return false
	}
	for k := win[0] + 1; k < x; k++ {
		if ev[k].Actor == ev[x].Actor && ev[k].EndsTx {
			return false
		}
	}
	return true
}

// orderDependent is the dependence that orders events i < j for
// happens-before: the full relation, except that a waiting unit's release
// depends on its blocker's events during the wait only through visibility.
func orderDependent(ev []Event, window map[int][2]int, i, j int) bool {
	if ev[i].Kind == WaitStart && (inWindowOfBlocker(ev, window, i, j) || queuedBehind(ev, window, i, j)) {
		return visibleOnly(&ev[i], &ev[j])
	}
	return dependent(&ev[i], &ev[j])
}

// raceDependent is orderDependent without the pairs that cannot be pending
// together: the end of a wait cannot come before the events of the actor
// it waited on during the wait.
func raceDependent(ev []Event, window map[int][2]int, i, j int) bool {
	if ev[j].Kind == WaitEnd && inWindowOfBlocker(ev, window, j, i) {
		return false
	}
	return orderDependent(ev, window, i, j)
}

// initials returns the candidates at the race's first event's decision
// whose actor can start a reversal of the race (an initial of the events
// after the first one that do not depend on it, followed by the second),
// the second event's actor first when it qualifies.
//
// It also returns the reversal's events: those after the first event that
// do not happen after it, then the second.
func (e *explorer) initials(tr *Trace, r race, cands []sched.Candidate) ([]sched.Candidate, []int) {
	ev := tr.Events
	window := waitWindows(ev)
	// v: events after first that do not happen after it, then second.
	after := map[int]bool{r.first: true}
	var v []int
	for k := r.first + 1; k < r.second; k++ {
		for a := range after {
			if ev[a].Actor == ev[k].Actor || orderDependent(ev, window, a, k) {
				after[k] = true
				break
			}
		}
		if !after[k] {
			v = append(v, k)
		}
	}
	v = append(v, r.second)
	firstOf := map[int]int{} // actor -> its first event in v
	var order []int
	for idx, k := range v {
		a := ev[k].Actor
		if _, seen := firstOf[a]; seen {
			continue
		}
		// An initial: nothing earlier in v happens before it.
		ok := true
		for _, p := range v[:idx] {
			if ev[p].Actor == a || orderDependent(ev, window, p, k) || widenedDependent(tr, p, k, r.second) {
				ok = false
				break
			}
		}
		firstOf[a] = k
		if ok {
			order = append(order, a)
		}
	}
	want := ev[r.second].Actor
	var out []sched.Candidate
	for _, pass := range []bool{true, false} {
		for _, a := range order {
			if (a == want) != pass {
				continue
			}
			for _, c := range cands {
				if c.Ref.Actor == a && c.Ref == ev[firstOf[a]].Ref {
					out = append(out, c)
				}
			}
		}
	}
	return out, v
}

// reversal is the rest of a race's reversal after its initial u: the units
// released by the reversal's events, in order (a wait's end releases
// nothing). The queued plan follows it (Plan.Then), so that the attempt
// reverses the race instead of leaving the order to the default policy,
// which may run the race in its old order again and need another attempt.
func reversal(tr *Trace, v []int, u sched.UnitRef) []ThenStep {
	var out []ThenStep
	for _, k := range v {
		if ev := &tr.Events[k]; ev.Kind != WaitEnd && ev.Ref != u {
			out = append(out, ThenStep{Ref: ev.Ref, Fault: ev.Fault})
		}
	}
	return out
}

// widenedDependent: event k of a reversal, moved before the race's first
// event, may run otherwise than in this attempt: a release that waited
// does not wait, and carries its transaction's end (case
// initial-wait-release), and the race's second event may not fail (its
// end is then a commit).
func widenedDependent(tr *Trace, p, k, second int) bool {
	ev := tr.Events
	if ev[k].Kind != WaitStart && !(k == second && (ev[k].Failed || ev[k].Aborted)) {
		return false
	}
	w := *whole(tr, k)
	return dependent(&ev[p], &w)
}

var debugReduction = os.Getenv("INTERLEAVE_DEBUG_REDUCTION") != ""

// prefixHash digests every field of the events released before step
// bound: two attempts with the same digest had the same events there.
func prefixHash(tr *Trace, bound int) [32]byte {
	h := sha256.New()
	if tr != nil {
		for i := range tr.Events {
			if tr.Events[i].Decision < bound {
				fmt.Fprintf(h, "%+v\n", tr.Events[i])
			}
		}
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

func evName(e *Event) string {
	k := [...]string{"", ".start", ".end"}[e.Kind]
	return fmt.Sprintf("%d#%d.%d%s@%d", e.Actor, e.Ref.Conn, e.Ref.Unit, k, e.Decision)
}

func dumpTrace(n *node, ds []sched.Decision, tr *Trace) {
	c := classOf(tr)
	fmt.Fprintf(os.Stderr, "run of plan %s (class %x):\n  decisions:", n.plan.Key(), c[:4])
	for _, d := range ds {
		fmt.Fprintf(os.Stderr, " %v", d.Released)
	}
	fmt.Fprintln(os.Stderr)
	for i := range tr.Events {
		e := &tr.Events[i]
		fmt.Fprintf(os.Stderr, "  %2d %s g=%v r=%v l=%v w=%v snap=%v%s ser=%v end=%v tx=%v/%v/%v\n", i, evName(e), e.Global, e.Reads, e.Locks, e.Writes, e.Snapshot, snapOf(e), e.Serializable, e.EndsTx, e.TxReads, e.TxWrites, e.TxLocks)
	}
}

func snapOf(e *Event) string {
	if !e.SnapshotKnown {
		return ""
	}
	return fmt.Sprintf("%v", e.SnapshotOf)
}

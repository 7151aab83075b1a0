package search

import "github.com/pginterleave/interleave/sched"

// Sleep sets (Godefroid; with source sets as in Abdulla, Aronis, Jonsson
// and Sagonas, "Source sets", JACM 2017, Algorithm 1). At a state, a move
// known before the one taken (explored or queued from there) is asleep in
// the state the taken move leads to, and stays asleep along the schedule
// while every event is independent of it: any order that starts with it
// from there is equivalent to one that starts with it earlier, which the
// search runs from the earlier state. A race whose reversal can start with
// a unit asleep at its state is therefore reversed already, and is not
// queued again. This removes orders that source sets alone would run twice
// (docs/search.md, "Sleep sets").
//
// The schedules here are real attempts: past a plan's last choice the
// default policy releases the first pending unit, and it may release one
// that is asleep. From there the attempt repeats an order explored
// elsewhere; sleep sets are not used past that state, and at that state the
// search queues a unit that is not asleep, as the algorithm would have run
// it instead (wakeAt).

// sleepSets returns, for each decision k of the attempt, the units asleep
// at the state before it, and the first decision that released a unit
// asleep (-1: none). Past that decision, or a decision that released a
// pair, or one whose events are not all known, the sets are nil: nothing
// is pruned there.
func (e *explorer) sleepSets(ds []sched.Decision, tr *Trace, keys []stateKey, first map[sched.UnitRef]int) ([][]sched.UnitRef, int) {
	if !e.useSleepSets() {
		return nil, -1
	}
	sleep := make([][]sched.UnitRef, len(ds))
	at := make([][]int, len(ds)) // the events of each decision
	for i := range tr.Events {
		ev := &tr.Events[i]
		if ev.Decision < 0 || ev.Decision >= len(ds) {
			return sleep, -1 // not every event is placed: use nothing
		}
		at[ev.Decision] = append(at[ev.Decision], i)
	}
	var cur []sched.UnitRef
	for k, d := range ds {
		// A unit asleep stays pending until its actor's next release
		// (a preparation is offered alone: the others are still pending).
		sleep[k] = cur
		if len(d.Released) != 1 {
			return sleep, -1
		}
		r := d.Released[0]
		for _, u := range cur {
			if u == r {
				return sleep, k
			}
		}
		// The moves known at this state before the one taken fall asleep.
		st := e.por[keys[k]]
		var next []sched.UnitRef
		cands := append([]sched.UnitRef(nil), cur...)
		if st != nil {
			taken := st.moves[moveOf(d)]
			for _, c := range d.Candidates {
				if c.Prepare || c.Ref.Actor == r.Actor {
					continue
				}
				if o := st.moves[single(c.Ref.Actor)]; o > 0 && o < taken && !containsRef(cands, c.Ref) {
					cands = append(cands, c.Ref)
				}
			}
		}
		// A unit stays asleep while independent of what happened.
		for _, u := range cands {
			if u.Actor == r.Actor {
				continue
			}
			i, ok := first[u]
			if !ok {
				continue // never ran in this attempt: nothing known of it
			}
			indep := true
			for _, j := range at[k] {
				if tr.Events[j].Actor == u.Actor || dependent(whole(tr, i), &tr.Events[j]) {
					indep = false
					break
				}
			}
			if indep {
				next = append(next, u)
			}
		}
		cur = next
	}
	return sleep, -1
}

// sleepAfter returns the units asleep once unit c is released at decision
// k: those asleep there, and the moves known there before c, that are
// independent of c (as this attempt ran them). The plan that releases c
// hands them to the default policy (Plan.Sleep); the analysis after its
// attempt decides what was asleep.
func (e *explorer) sleepAfter(k int, c sched.UnitRef, ds []sched.Decision, keys []stateKey, tr *Trace, first map[sched.UnitRef]int, sleep [][]sched.UnitRef) []sched.UnitRef {
	if !e.useSleepSets() || k >= len(sleep) {
		return nil
	}
	ci, ok := first[c]
	if !ok {
		return nil
	}
	st := e.por[keys[k]]
	cands := append([]sched.UnitRef(nil), sleep[k]...)
	for _, d := range ds[k].Candidates {
		if !d.Prepare && d.Ref.Actor != c.Actor && st != nil && st.has(single(d.Ref.Actor)) && !containsRef(cands, d.Ref) {
			cands = append(cands, d.Ref)
		}
	}
	var out []sched.UnitRef
	for _, u := range cands {
		if i, ok := first[u]; ok && u.Actor != c.Actor && !dependent(whole(tr, i), whole(tr, ci)) {
			out = append(out, u)
		}
	}
	return out
}

// firstEvents maps each unit to its first event (Whole or WaitStart).
func firstEvents(tr *Trace) map[sched.UnitRef]int {
	first := map[sched.UnitRef]int{}
	for i := range tr.Events {
		if _, ok := first[tr.Events[i].Ref]; !ok && tr.Events[i].Kind != WaitEnd {
			first[tr.Events[i].Ref] = i
		}
	}
	return first
}

// whole is the unit of event i as it would run released elsewhere: for a
// unit that waited, its wait's end, which carries everything the unit does
// (the transaction it ends, with what that transaction did); its release
// does not (generated seed 73027: a Query ending its transaction, which
// waited in one attempt, was kept asleep across another actor's snapshot
// because its release ends nothing, and the order where it ran between
// that snapshot and the next statement was never explored).
func whole(tr *Trace, i int) *Event {
	ev := wholeAsRun(tr, i)
	if ev.SnapshotKnown || ev.Failed || ev.Aborted {
		// Released at another state, the unit may not fail (its end is
		// then a commit: case sleep-failure-outcome) and its
		// REPEATABLE READ transaction may touch more than it did here
		// (case sleep-snapshot-shrinks): it is judged as the widest of
		// those.
		c := *ev
		c.SnapshotKnown, c.SnapshotOf = false, nil
		c.Failed, c.Aborted = false, false
		return &c
	}
	return ev
}

// wholeAsRun is the unit of event i as this attempt ran it.
func wholeAsRun(tr *Trace, i int) *Event {
	ev := &tr.Events[i]
	if ev.Kind != WaitStart {
		return ev
	}
	for j := i + 1; j < len(tr.Events); j++ {
		if tr.Events[j].Kind == WaitEnd && tr.Events[j].Ref == ev.Ref {
			return &tr.Events[j]
		}
	}
	return ev
}

// useSleepSets: not with pairs (a pair is not one unit) or when switched
// off for measurement. Shards use them: every move a shard knows at a state
// is explored by some shard, and the moves of the shared schedules, known
// to all, are numbered alike in every shard (they run one at a time, in
// the same order) and before any a shard adds later; so no two shards put
// each other's moves asleep (docs/search.md, "Shards").
//
// Nor with faults: a faulted release is another move of the same unit, and
// sleep sets here name units, not moves.
func (e *explorer) useSleepSets() bool {
	return !e.opts.SourceSetsOnly && e.opts.Overlap != Pairs && len(e.opts.Faults) == 0
}

// asleep reports whether unit u is asleep at the state before decision k.
func asleep(sleep [][]sched.UnitRef, k int, u sched.UnitRef) bool {
	return k < len(sleep) && containsRef(sleep[k], u)
}

// wakeAt handles an attempt that released a unit asleep at decision k: the
// algorithm would have released a unit not asleep there, so one is queued
// unless the state already has such a move.
func (e *explorer) wakeAt(k int, ds []sched.Decision, keys []stateKey, sleep [][]sched.UnitRef, queue func(int, []sched.UnitRef, sched.Fault, []ThenStep)) {
	st := e.state(keys[k])
	for mk := range st.moves {
		if mk.b >= 0 {
			return // a pair: not in this search
		}
		awake := true
		for _, u := range sleep[k] {
			if u.Actor == mk.a {
				awake = false
			}
		}
		if awake {
			return
		}
	}
	for _, c := range ds[k].Candidates {
		if c.Prepare || asleep(sleep, k, c.Ref) || !st.mark(single(c.Ref.Actor)) {
			continue
		}
		e.sum.SleepWakes++
		queue(k, []sched.UnitRef{c.Ref}, sched.NoFault, nil)
		return
	}
}

func containsRef(us []sched.UnitRef, u sched.UnitRef) bool {
	for _, x := range us {
		if x == u {
			return true
		}
	}
	return false
}

package search

import (
	"container/heap"
	"sort"
)

// Shards (Options.Shard K of Shards N) divide one search between machines
// that do not talk to each other. Every shard runs the first schedules
// alike, one at a time: the first schedule and, under reduction, every
// plan with one choice. Then the pending plans are grouped by branch (their
// first choice) and the branches dealt out; each shard searches below its
// own branches as a whole search would, reduction included, and queues
// what its own attempts' races call for wherever it is. docs/search.md
// ("Shards") says why the shards together explore every class the whole
// search explores, and what they repeat.

// sharing reports whether this search is a shard still running the
// schedules every shard runs; e.mu held.
func (e *explorer) sharing() bool {
	return e.opts.Shards > 1 && !e.dealt && !e.sampled
}

// sharedDepth is the most choices of a plan every shard runs: the first
// schedule and, when the reduction analysed it, every plan with one choice
// (the first schedule of each branch), whose races reach back to the first
// schedule's own states and would otherwise be found by several shards.
// Without a trace every alternative is queued below the plan's last
// choice, inside its branch, and the first schedule alone is shared.
func (e *explorer) sharedDepth() int {
	if e.sharedReduced {
		return 1
	}
	return 0
}

// popShared takes the next shared plan: the pending plan with the fewest
// choices, then in the frontier's breadth-first order (a depth-first
// frontier would run a whole branch first); e.mu held.
func (e *explorer) popShared() *node {
	best := 0
	for i, n := range e.front.nodes {
		if breadthFirst(n, e.front.nodes[best]) {
			best = i
		}
	}
	n := heap.Remove(e.front, best).(*node)
	e.bytes -= n.size()
	return n
}

func breadthFirst(a, b *node) bool {
	return (&frontier{}).before(a, b)
}

// recordShared records a shared schedule in a shard other than the first,
// which counts it: like record, it queues what follows the schedule, so
// that every shard holds the same frontier, and counts nothing; e.mu held.
func (e *explorer) recordShared(n *node, seq int, rep Report) {
	switch {
	case rep.Stop != nil:
		e.sum.StopErr = rep.Stop
		e.stop(StopHarness)
	case rep.Diverged:
		// record queues nothing after a diverged attempt either.
	default:
		e.noteBehaviour(rep)
		e.expandFor(n, seq, rep)
		e.queueVictims(n, seq, rep)
	}
}

// noteBehaviour remembers what a shared schedule did, for the reduction
// check: the first attempt of each branch is the equivalent of orders
// skipped in it; e.mu held.
func (e *explorer) noteBehaviour(rep Report) {
	if rep.Behaviour == "" || rep.Stop != nil {
		return
	}
	if e.behaviours[rep.Behaviour] || len(e.behaviours) < maxBehaviours {
		e.behaviours[rep.Behaviour] = true
	} else {
		e.behaviourFull = true
	}
}

// shardCheck records a random order of the reduction check in a shard
// and reports whether it did: the order may belong to another shard's
// branch, so a behaviour new to this shard says nothing of the whole
// search; only a failure counts (as the search's). e.mu held.
func (e *explorer) shardCheck(n *node, seq int, rep Report) bool {
	if e.opts.Shards <= 1 || n.check != checkRandom || rep.Stop != nil || rep.Diverged || rep.Inconclusive {
		return false
	}
	e.check.Random++
	e.check.Sampled++
	if rep.Failed {
		e.checkFailure(n, seq)
	}
	return true
}

// deal ends the shared schedules once every pending plan has more choices
// than sharedDepth: it groups the pending plans by branch (their first
// choice and deadlock victims), deals the branches out, largest first, to
// the shard with the fewest pending plans so far, and keeps this shard's;
// e.mu held.
func (e *explorer) deal(shared *node, rep Report) {
	if shared.depth == 0 && shared.plan.Key() == "" {
		e.sharedReduced = e.opts.Reduction == POR && rep.Trace != nil
	}
	for _, n := range e.front.nodes {
		if n.depth <= e.sharedDepth() && e.stopping == "" {
			return
		}
	}
	nodes := append([]*node(nil), e.front.nodes...)
	sort.Slice(nodes, func(i, j int) bool { return breadthFirst(nodes[i], nodes[j]) })
	type branch struct {
		key   string
		nodes []*node
	}
	var branches []*branch
	byKey := map[string]*branch{}
	for _, n := range nodes {
		k := branchKey(n.plan)
		b := byKey[k]
		if b == nil {
			b = &branch{key: k}
			byKey[k] = b
			branches = append(branches, b)
		}
		b.nodes = append(b.nodes, n)
	}
	sort.SliceStable(branches, func(i, j int) bool { return len(branches[i].nodes) > len(branches[j].nodes) })
	e.dealt = true
	load := make([]int, e.opts.Shards)
	e.front.nodes = e.front.nodes[:0]
	for _, b := range branches {
		to := 0
		for k := range load {
			if load[k] < load[to] {
				to = k
			}
		}
		load[to] += len(b.nodes)
		for _, n := range b.nodes {
			if to == e.opts.Shard-1 {
				e.front.nodes = append(e.front.nodes, n)
			} else {
				e.bytes -= n.size()
			}
		}
	}
	heap.Init(e.front)
	e.cond.Broadcast()
}

// branchKey names the branch of plan p: its first choice and its deadlock
// victims.
func branchKey(p Plan) string {
	return Plan{Choices: p.Choices[:min(1, len(p.Choices))], Victims: p.Victims}.Key()
}

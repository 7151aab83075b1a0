package search

import "container/heap"

// node is a plan waiting in the frontier, with its place in the
// deterministic exploration order.
type node struct {
	plan      Plan
	depth     int
	parentSeq int // dispatch sequence of the parent attempt
	child     int // index among the parent's children
	path      []int32
	nextChild int // children queued so far (partial-order reduction)
	// check marks a node of the reduction check, skipped the order it
	// samples, sampleBehaviour what the sample did (for a parent run).
	check           checkKind
	skipped         *skippedOrder
	sampleBehaviour string
	// deadlocked: the node's attempt had a deadlock (set before the
	// reduction expands it; see reducedVictims).
	deadlocked bool
	// victimAfter, on a plan that chooses another victim for a deadlock
	// (queueVictims): the deadlock's step (the release that closed the
	// cycle). The attempt runs as the one that deadlocked did before
	// there, and the races between its units released before then are
	// that attempt's, already reversed from it, when its events there are
	// the same (victimHash; see expandReduced).
	victimAfter int
	// victimHash: what the events released before victimAfter were in
	// the attempt whose races this plan leaves to it (prefixHash). The
	// races are left only when this attempt's are the same: a footprint
	// may depend on the victim (a REPEATABLE READ snapshot names what its
	// whole transaction touches, case deadlock-victim-snapshot).
	victimHash [32]byte
}

// reducedVictims is the victim order the reduction keys the attempt's
// states with and gives the plans it queues from them: the plan's own
// when the attempt had a deadlock, the default otherwise. A victim order
// decides nothing in an attempt without a deadlock (it only spaces the
// actors' deadlock_timeout), so such an attempt's states are those of the
// default order; a plan that deadlocks later gets its other victims from
// queueVictims there. Keying them by the order the attempt happened to run
// with explored every order once per victim order (generated seed 65466:
// 36 orders where the unreduced search ran 22).
func (n *node) reducedVictims() []int {
	if n.deadlocked {
		return n.plan.Victims
	}
	return nil
}

// frontier is a priority queue of plans. For fifo (breadth-first, fewest
// choices first) the order is (depth, parent sequence, child index); for dfs
// it is the lexicographic order of child-index paths.
type frontier struct {
	nodes   []*node
	dfs     bool
	reduced bool
}

func (f *frontier) Len() int { return len(f.nodes) }
func (f *frontier) Less(i, j int) bool {
	return f.before(f.nodes[i], f.nodes[j])
}
func (f *frontier) Swap(i, j int) { f.nodes[i], f.nodes[j] = f.nodes[j], f.nodes[i] }
func (f *frontier) Push(x any)    { f.nodes = append(f.nodes, x.(*node)) }
func (f *frontier) Pop() any {
	n := f.nodes[len(f.nodes)-1]
	f.nodes[len(f.nodes)-1] = nil
	f.nodes = f.nodes[:len(f.nodes)-1]
	return n
}

func (f *frontier) before(a, b *node) bool {
	if f.dfs {
		for i := 0; i < len(a.path) && i < len(b.path); i++ {
			if a.path[i] != b.path[i] {
				return a.path[i] < b.path[i]
			}
		}
		return len(a.path) < len(b.path)
	}
	if a.depth != b.depth {
		return a.depth < b.depth
	}
	if a.parentSeq != b.parentSeq {
		return a.parentSeq < b.parentSeq
	}
	return a.child < b.child
}

func (f *frontier) push(n *node) { heap.Push(f, n) }
func (f *frontier) peek() *node  { return f.nodes[0] }
func (f *frontier) pop() *node   { return heap.Pop(f).(*node) }

// running is an attempt in flight, for the dispatch rule.
type running struct {
	seq   int
	depth int
	path  []int32
}

// mayDispatch reports whether n can start now without changing the
// exploration order: no attempt in flight could still add a child that
// sorts before n. This keeps parallel searches identical in content to a
// serial one under the same budget.
func (f *frontier) mayDispatch(n *node, inflight map[int]running) bool {
	if f.reduced && !f.dfs {
		// Under reduction a child may be shallower than its parent (a race
		// at an earlier state): no order is exact, so none is waited for.
		return true
	}
	for _, r := range inflight {
		if f.dfs {
			return false // depth-first order is serial by nature
		}
		if r.depth+1 < n.depth || (r.depth+1 == n.depth && r.seq < n.parentSeq) {
			return false
		}
	}
	return true
}

// size estimates the memory a queued node holds, for the frontier budget.
func (n *node) size() int {
	b := 136 + 4*len(n.path) // victimAfter and victimHash included
	for _, c := range n.plan.Choices {
		b += 48 + 24*len(c.Units)
	}
	return b + 24*(len(n.plan.Then)+len(n.plan.Sleep))
}

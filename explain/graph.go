package explain

import (
	"fmt"
	"sort"
	"strings"
)

// Transactions groups cmds (in the order they were released) into the
// transactions of each session: a transaction ends at the command after
// which its session is idle (COMMIT, ROLLBACK, an autocommit statement).
// defaultLevel is the sessions' default isolation ("" is read committed).
func Transactions(cmds []Command, defaultLevel string) []*Transaction {
	if defaultLevel == "" {
		defaultLevel = "read committed"
	}
	open := map[string]*Transaction{}
	count := map[string]int{}
	var out []*Transaction
	for i := range cmds {
		c := &cmds[i]
		lane := fmt.Sprintf("%s#%d", c.Actor, c.Conn)
		t := open[lane]
		if t == nil {
			count[c.Actor]++
			t = &Transaction{ID: fmt.Sprintf("%s:%d", c.Actor, count[c.Actor]), Actor: c.Actor, Isolation: defaultLevel, ReadOnly: true}
			open[lane] = t
			out = append(out, t)
		}
		t.cmds = append(t.cmds, c)
		t.Steps = append(t.Steps, c.Step)
		if c.Isolation != "" {
			t.Isolation = c.Isolation
		}
		if len(c.Writes) > 0 {
			t.ReadOnly = false
		}
		if c.TxStatus == "I" || c.TxStatus == "" && (c.Kind == KindCommit || c.Kind == KindRollback) {
			t.Committed = committed(t)
			delete(open, lane)
		}
	}
	return out
}

// committed: the transaction ended idle through a command that is not a
// ROLLBACK, and no command of it failed (a COMMIT of a failed transaction
// rolls back).
func committed(t *Transaction) bool {
	for _, c := range t.cmds {
		if c.SQLState != "" || c.TxStatus == "E" {
			return false
		}
	}
	last := t.cmds[len(t.cmds)-1]
	return last.Kind != KindRollback
}

// snapshotOf is when a read of c in t sees the database: under READ
// COMMITTED when the statement starts (when it completes for a locking
// read or a write, which waits for and sees the latest committed row);
// under REPEATABLE READ and SERIALIZABLE when the transaction's first
// statement after BEGIN started.
func snapshotOf(t *Transaction, c *Command, a Access) int64 {
	at, _ := snapshotAt(t, c, a)
	return at
}

// snapshotAt is snapshotOf and the step that took the snapshot.
func snapshotAt(t *Transaction, c *Command, a Access) (int64, int) {
	if t.Isolation == "repeatable read" || t.Isolation == "serializable" {
		for _, d := range t.cmds {
			if d.Kind == KindDML {
				if d.PreparedStep > 0 || d.Prepared > 0 {
					return d.Prepared, d.PreparedStep
				}
				return d.Start, d.Step
			}
		}
	}
	if a.Locked {
		return c.End, c.Step
	}
	return c.Start, c.Step
}

// commitTime is when the transaction's writes became visible.
func commitTime(t *Transaction) (int64, int) {
	last := t.cmds[len(t.cmds)-1]
	return last.End, last.Step
}

// Dependencies are the edges between the committed transactions.
func Dependencies(txs []*Transaction) []Edge {
	var edges []Edge
	for _, ti := range txs {
		if !ti.Committed {
			continue
		}
		for _, tj := range txs {
			if tj == ti || !tj.Committed {
				continue
			}
			edges = append(edges, between(ti, tj)...)
		}
	}
	return dedupe(edges)
}

// between lists the edges ti -> tj.
func between(ti, tj *Transaction) []Edge {
	var out []Edge
	ciEnd, _ := commitTime(ti)
	cjEnd, cjStep := commitTime(tj)
	for _, a := range ti.cmds {
		for _, b := range tj.cmds {
			for _, wa := range a.Writes {
				for _, wb := range b.Writes {
					// An insert creates rows, it overwrites none; an indirect
					// write names no rows.
					if Overlap(wa, wb) && a.End < b.End && !wb.Insert && !wa.Indirect && !wb.Indirect {
						out = append(out, Edge{From: ti.ID, To: tj.ID, Kind: WW, Relation: wa.Relation, Key: keyText(wa, wb), FromStep: a.Step, ToStep: b.Step, Insert: wb.Insert})
					}
				}
				for _, rb := range b.Reads {
					if Overlap(wa, rb) && ciEnd <= snapshotOf(tj, b, rb) {
						out = append(out, Edge{From: ti.ID, To: tj.ID, Kind: WR, Relation: wa.Relation, Key: keyText(wa, rb), FromStep: a.Step, ToStep: b.Step, Insert: wa.Insert, Predicate: len(rb.Key) == 0})
					}
				}
			}
			for _, ra := range a.Reads {
				for _, wb := range b.Writes {
					if at, step := snapshotAt(ti, a, ra); Overlap(ra, wb) && at < cjEnd {
						e := Edge{From: ti.ID, To: tj.ID, Kind: RW, Relation: ra.Relation, Key: keyText(ra, wb), FromStep: a.Step, ToStep: b.Step, CommitStep: cjStep, Insert: wb.Insert, Predicate: len(ra.Key) == 0}
						if step != a.Step {
							e.SnapshotStep = step
						}
						out = append(out, e)
					}
				}
			}
		}
	}
	return out
}

func dedupe(edges []Edge) []Edge {
	seen := map[string]bool{}
	var out []Edge
	for _, e := range edges {
		k := fmt.Sprintf("%s|%s|%s|%s|%s|%d|%d", e.From, e.To, e.Kind, e.Relation, e.Key, e.FromStep, e.ToStep)
		if !seen[k] {
			seen[k] = true
			out = append(out, e)
		}
	}
	return out
}

// kindRank orders the edges a cycle prefers between the same two
// transactions: a write dependency before a read, an anti-dependency last
// (Adya's phenomena from G0 to G2).
func kindRank(k DepKind) int {
	switch k {
	case WW:
		return 0
	case WR:
		return 1
	}
	return 2
}

// ShortestCycle is the cycle with the fewest anti-dependencies, then the
// fewest transactions, then the earliest steps; nil when there is none.
func ShortestCycle(edges []Edge) []Edge {
	best := map[[2]string]Edge{}
	for _, e := range edges {
		k := [2]string{e.From, e.To}
		if b, ok := best[k]; !ok || better(e, b) {
			best[k] = e
		}
	}
	next := map[string][]Edge{}
	var nodes []string
	seen := map[string]bool{}
	for _, e := range best {
		next[e.From] = append(next[e.From], e)
		for _, n := range []string{e.From, e.To} {
			if !seen[n] {
				seen[n] = true
				nodes = append(nodes, n)
			}
		}
	}
	sort.Strings(nodes)
	for _, n := range nodes {
		sort.Slice(next[n], func(i, j int) bool { return next[n][i].To < next[n][j].To })
	}
	var found []Edge
	score := func(c []Edge) [3]int {
		rw, first := 0, 1<<30
		for _, e := range c {
			if e.Kind == RW {
				rw++
			}
			if e.FromStep < first {
				first = e.FromStep
			}
		}
		return [3]int{rw, len(c), first}
	}
	less := func(a, b [3]int) bool {
		for i := range a {
			if a[i] != b[i] {
				return a[i] < b[i]
			}
		}
		return false
	}
	const maxLen = 6
	var path []Edge
	var walk func(start, at string, on map[string]bool)
	walk = func(start, at string, on map[string]bool) {
		if len(path) >= maxLen {
			return
		}
		for _, e := range next[at] {
			if e.To == start {
				c := append(append([]Edge(nil), path...), e)
				if found == nil || less(score(c), score(found)) {
					found = c
				}
				continue
			}
			if on[e.To] || e.To < start { // each cycle once, from its least node
				continue
			}
			on[e.To] = true
			path = append(path, e)
			walk(start, e.To, on)
			path = path[:len(path)-1]
			delete(on, e.To)
		}
	}
	for _, n := range nodes {
		walk(n, n, map[string]bool{n: true})
	}
	return rotate(found)
}

// better prefers e over b between the same two transactions.
func better(e, b Edge) bool {
	if kindRank(e.Kind) != kindRank(b.Kind) {
		return kindRank(e.Kind) < kindRank(b.Kind)
	}
	if (e.Key != "") != (b.Key != "") {
		return e.Key != "" // a row over a relation
	}
	return e.FromStep < b.FromStep
}

// rotate starts the cycle at the edge whose first command came earliest.
func rotate(c []Edge) []Edge {
	if len(c) == 0 {
		return nil
	}
	at := 0
	for i, e := range c {
		if e.FromStep < c[at].FromStep {
			at = i
		}
	}
	return append(append([]Edge(nil), c[at:]...), c[:at]...)
}

func sortStrings(s []string) { sort.Strings(s) }

// describeEdge says one edge in words.
func describeEdge(e Edge) string {
	what := e.Relation
	if e.Key != "" {
		what += " (" + e.Key + ")"
	}
	switch e.Kind {
	case WW:
		return fmt.Sprintf("%s -ww-> %s: step %d overwrote %s written at step %d", e.From, e.To, e.ToStep, what, e.FromStep)
	case WR:
		return fmt.Sprintf("%s -wr-> %s: step %d read %s that step %d wrote", e.From, e.To, e.ToStep, what, e.FromStep)
	}
	return fmt.Sprintf("%s -rw-> %s: step %d read %s before %s's write at step %d committed (step %d)", e.From, e.To, e.FromStep, what, e.To, e.ToStep, e.CommitStep)
}

// DescribeEdge is an edge in one line, as the summaries print it.
func DescribeEdge(e Edge) string { return describeEdge(e) }

func joinIDs(c []Edge) string {
	var ids []string
	for _, e := range c {
		ids = append(ids, e.From)
	}
	return strings.Join(append(ids, c[0].From), " -> ")
}

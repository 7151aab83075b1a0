package explain

import (
	"fmt"
	"strings"
)

// Engineers' names of the anomalies.
const (
	LostUpdate      = "lost update"
	WriteSkew       = "write skew"
	ReadSkew        = "read skew"
	Phantom         = "phantom"
	ReadOnlyAnomaly = "read-only anomaly"
	CircularFlow    = "circular information flow"
	DirtyWrite      = "dirty write"
)

// NoCycle is what Anomaly.Sentence says when the failure is not an
// isolation anomaly.
const NoCycle = "no dependency cycle between transactions"

// Analyze builds the graph of cmds (in release order) and names its
// shortest cycle. defaultLevel is the sessions' default isolation level.
func Analyze(scenario, failure string, cmds []Command, defaultLevel string) *Explanation {
	x := &Explanation{SchemaVersion: SchemaVersion, Scenario: scenario, Failure: failure}
	var known []Command
	for _, c := range cmds {
		if c.Kind == KindGlobal {
			x.Unknown++
			continue
		}
		known = append(known, c)
	}
	txs := Transactions(known, defaultLevel)
	for _, t := range txs {
		x.Transactions = append(x.Transactions, *t)
	}
	x.Edges = Dependencies(txs)
	if x.Edges == nil {
		x.Edges = []Edge{}
	}
	x.Cycle = ShortestCycle(x.Edges)
	if x.Cycle == nil {
		x.Cycle = []Edge{}
	}
	x.Anomaly = Name(x.Cycle, txs)
	if x.Unknown > 0 {
		x.Notes = append(x.Notes, fmt.Sprintf("%d commands are not understood (DDL, functions that may write, ...) and are left out of the graph", x.Unknown))
	}
	return x
}

// Name names a cycle over the transactions txs.
func Name(cycle []Edge, txs []*Transaction) Anomaly {
	if len(cycle) == 0 {
		return Anomaly{Sentence: NoCycle + ": the order breaks the invariant without an isolation anomaly (for example a check and a write in separate transactions, which a constraint or one transaction with a lock would stop)"}
	}
	byID := map[string]*Transaction{}
	for _, t := range txs {
		byID[t.ID] = t
	}
	var rw, ww []Edge
	for _, e := range cycle {
		switch e.Kind {
		case RW:
			rw = append(rw, e)
		case WW:
			ww = append(ww, e)
		}
	}
	path := joinIDs(cycle)
	item := true
	for _, e := range rw {
		if e.Predicate {
			item = false
		}
	}
	switch {
	case len(rw) == 0 && len(ww) == len(cycle):
		return Anomaly{Name: DirtyWrite, Adya: "G0", Sentence: fmt.Sprintf("%s: a cycle of write dependencies (%s)", DirtyWrite, path)}
	case len(rw) == 0:
		return Anomaly{Name: CircularFlow, Adya: "G1c", Sentence: fmt.Sprintf("%s: each transaction saw the other's writes (%s)", CircularFlow, path)}
	case len(rw) == 1:
		r := rw[0]
		for _, w := range ww {
			if w.Relation == r.Relation && w.From == r.To && w.To == r.From {
				return Anomaly{Name: LostUpdate, Adya: "G-single", Sentence: fmt.Sprintf("%s: %s read %s at step %d and wrote it back at step %d; %s wrote it at step %d and committed at step %d, after that read, so %s's write replaced %s's: %s's update is lost (%s)",
					LostUpdate, r.From, rowOf(r), r.FromStep, w.ToStep, r.To, r.ToStep, r.CommitStep, r.From, r.To, r.To, path)}
			}
		}
		if r.Insert {
			return Anomaly{Name: Phantom, Adya: "G-single", Sentence: fmt.Sprintf("%s: %s read %s by a predicate at step %d, %s inserted a matching row (step %d) and committed (step %d), and %s then saw it: one transaction, two answers (%s)",
				Phantom, r.From, r.Relation, r.FromStep, r.To, r.ToStep, r.CommitStep, r.From, path)}
		}
		return Anomaly{Name: ReadSkew, Adya: "G-single", Sentence: fmt.Sprintf("%s (non-repeatable read): %s read %s at step %d before %s's write (step %d) committed (step %d), and later read what %s wrote: it saw the database both before and after %s (%s)",
			ReadSkew, r.From, rowOf(r), r.FromStep, r.To, r.ToStep, r.CommitStep, r.To, r.To, path)}
	}
	adya := "G2"
	if item {
		adya = "G2-item"
	}
	for _, e := range cycle {
		if t := byID[e.From]; t != nil && t.ReadOnly && len(cycle) >= 3 {
			return Anomaly{Name: ReadOnlyAnomaly, Adya: adya, Sentence: fmt.Sprintf("%s: the read-only transaction %s saw a state that no serial order of the others produces (%s; %s)",
				ReadOnlyAnomaly, t.ID, path, edgeList(cycle))}
		}
	}
	return Anomaly{Name: WriteSkew, Adya: adya, Sentence: fmt.Sprintf("%s: each of %s read what another then changed, before that change committed, and each wrote on what it read (%s)",
		WriteSkew, strings.Join(txIDs(cycle), " and "), edgeList(cycle))}
}

func rowOf(e Edge) string {
	if e.Key != "" {
		return e.Relation + " (" + e.Key + ")"
	}
	return e.Relation
}

func txIDs(c []Edge) []string {
	var out []string
	for _, e := range c {
		out = append(out, e.From)
	}
	return out
}

func edgeList(c []Edge) string {
	var out []string
	for _, e := range c {
		out = append(out, describeEdge(e))
	}
	return strings.Join(out, "; ")
}

// Verdict draws the fix class from the level runs.
func Verdict(levels []LevelRun, cycle []Edge) *Fix {
	var rr, ser *LevelRun
	for i := range levels {
		switch levels[i].Level {
		case "repeatable read":
			rr = &levels[i]
		case "serializable":
			ser = &levels[i]
		}
	}
	if rr == nil || ser == nil {
		return &Fix{Class: FixUnknown, Advice: "the order could not be replayed at REPEATABLE READ and SERIALIZABLE, so no isolation level is shown to prevent it"}
	}
	prevented := func(l *LevelRun) bool { return l.Held }
	switch {
	case prevented(rr) && len(rr.Errors) == 0:
		return &Fix{Class: FixRepeatableRead, Advice: "REPEATABLE READ prevents this: run the transactions at REPEATABLE READ (its snapshot makes every read of a transaction agree)"}
	case prevented(rr):
		return &Fix{Class: FixRepeatableRead, Advice: fmt.Sprintf("REPEATABLE READ prevents this if the code retries on %s (%s)", rr.Errors[0].SQLState, failedBy(rr))}
	case prevented(ser) && len(ser.Errors) == 0:
		return &Fix{Class: FixSerializable, Advice: "SERIALIZABLE prevents this: run the transactions at SERIALIZABLE"}
	case prevented(ser):
		return &Fix{Class: FixSerializable, Advice: fmt.Sprintf("SERIALIZABLE prevents this if the code retries on %s (%s)", ser.Errors[0].SQLState, failedBy(ser))}
	}
	for _, l := range []*LevelRun{rr, ser} {
		if l.Outcome != "violation" {
			return &Fix{Class: FixUnknown, Advice: fmt.Sprintf("no verdict: the run at %s ended %s, not with the invariant judged (%s)", strings.ToUpper(l.Level), l.Outcome, l.Message)}
		}
	}
	return &Fix{Class: FixLocking, Advice: "a stronger isolation level does not prevent this: lock the row (FOR UPDATE), add a constraint, or widen the transaction"}
}

func failedBy(l *LevelRun) string {
	var out []string
	for _, e := range l.Errors {
		out = append(out, fmt.Sprintf("%s got %s at step %d", e.Actor, e.SQLState, e.Step))
	}
	return strings.Join(out, ", ")
}

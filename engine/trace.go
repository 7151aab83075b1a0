package engine

import (
	"context"
	"sort"
	"strings"

	"github.com/pginterleave/interleave/capture"
	"github.com/pginterleave/interleave/footprint"
	"github.com/pginterleave/interleave/sched"
	"github.com/pginterleave/interleave/search"
)

// reductionTrace describes an attempt for partial-order reduction: each
// executing unit with what it touched (asked of PostgreSQL on the worker's
// control connection, after the attempt), its transaction's state and
// isolation, and, for a unit that waited on a lock, its release and the end
// of its wait as two events. It returns nil when the attempt cannot be
// described (the search then explores every alternative).
func (w *worker) reductionTrace(ctx context.Context, r *attemptResult) *search.Trace {
	if r.Sched == nil || w.control == nil || w.control.IsClosed() || w.control.PgConn().TxStatus() != 'I' {
		return nil
	}
	cls := footprint.NewClassifier(w.control, w.env.footprints)
	fps := w.unitFootprints(ctx, r.Sched, cls)
	if ctx.Err() != nil {
		return nil
	}
	units := map[sched.UnitRef]*sched.UnitRecord{}
	for _, u := range r.Sched.Units {
		units[u.Ref] = u
	}
	tr := &search.Trace{}
	type pendingEnd struct {
		at  int64
		ev  search.Event
		ref sched.UnitRef
	}
	var waiting []pendingEnd
	ds := r.Sched.Decisions
	for k, d := range ds {
		for _, ref := range d.Released {
			u := units[ref]
			f, ok := fps[ref]
			if u == nil || !ok {
				continue
			}
			if u.Prepare {
				// Released alone as soon as it is pending, right after the
				// actor's previous unit: it is part of that unit's move.
				if prev := lastOf(tr, ref.Actor); prev != nil {
					prev.Snapshot = prev.Snapshot || f.Snapshot
					continue
				}
				if !f.Snapshot {
					continue
				}
			}
			ev := f
			ev.Ref, ev.Actor, ev.Decision = ref, ref.Actor, k
			blockers := waitedOn(u)
			if len(blockers) == 0 || !u.Completed {
				if len(blockers) > 0 {
					ev.Kind, ev.Blockers = search.WaitStart, blockers
				}
				tr.Events = append(tr.Events, ev)
				continue
			}
			ev.Kind, ev.Blockers = search.WaitStart, blockers
			tr.Events = append(tr.Events, ev)
			end := ev
			end.Kind = search.WaitEnd
			waiting = append(waiting, pendingEnd{at: int64(u.CompletedAt), ev: end, ref: ref})
		}
		// Waits that ended before the next release take effect here, in the
		// order they completed.
		next := int64(-1)
		if k+1 < len(ds) {
			for _, ref := range ds[k+1].Released {
				if u := units[ref]; u != nil {
					next = int64(u.ReleasedAt)
				}
			}
		}
		sort.SliceStable(waiting, func(i, j int) bool { return waiting[i].at < waiting[j].at })
		kept := waiting[:0]
		for _, p := range waiting {
			if next < 0 || p.at < next {
				p.ev.Decision = k
				tr.Events = append(tr.Events, p.ev)
			} else {
				kept = append(kept, p)
			}
		}
		waiting = kept
	}
	return tr
}

// lastOf is the actor's latest event so far.
func lastOf(tr *search.Trace, actor int) *search.Event {
	for i := len(tr.Events) - 1; i >= 0; i-- {
		if tr.Events[i].Actor == actor {
			return &tr.Events[i]
		}
	}
	return nil
}

// waitedOn lists the actors a unit waited on.
func waitedOn(u *sched.UnitRecord) []int {
	var out []int
	seen := map[int]bool{}
	for _, lw := range u.LockWaits {
		for _, b := range lw.Blockers {
			if !seen[b] {
				seen[b] = true
				out = append(out, b)
			}
		}
	}
	sort.Ints(out)
	return out
}

// unitFootprints classifies every unit, following each connection's
// transactions: what each transaction did so far, its isolation level, its
// first statement (the snapshot of REPEATABLE READ and SERIALIZABLE).
func (w *worker) unitFootprints(ctx context.Context, res *sched.Result, cls *footprint.Classifier) map[sched.UnitRef]search.Event {
	byConn := map[[2]int][]*sched.UnitRecord{}
	for _, u := range res.Units {
		k := [2]int{u.Ref.Actor, u.Ref.Conn}
		byConn[k] = append(byConn[k], u)
	}
	serverDefault := "read committed"
	if fp := w.env.fingerprint(); fp != nil {
		if v := footprint.NormalIsolation(fp.Settings["default_transaction_isolation"]); v != "" {
			serverDefault = v
		}
	}
	out := map[sched.UnitRef]search.Event{}
	for k, us := range byConn {
		sort.Slice(us, func(i, j int) bool { return us[i].Ref.Unit < us[j].Ref.Unit })
		c := connTx{session: sessionIsolation(res.Lanes, k, serverDefault), status: 'I'}
		st := capture.NewStatements()
		for _, u := range us {
			d := st.Unit(u.Bytes)
			var stmts []footprint.Statement
			if u.Prepare {
				// Parse and Bind analyse the statement with the
				// transaction's snapshot: in REPEATABLE READ and
				// SERIALIZABLE the first one takes it.
				for _, sql := range d.SQL {
					for _, s := range cls.Classify(ctx, sql) {
						if s.Kind == footprint.DML {
							stmts = append(stmts, footprint.Statement{Kind: footprint.DML})
						}
					}
				}
				out[u.Ref] = c.event(u, footprint.Combine(stmts))
				continue
			}
			for _, sql := range d.Executed {
				if sql == "" {
					stmts = append(stmts, footprint.Statement{Kind: footprint.Global, Why: "a function call"})
					continue
				}
				stmts = append(stmts, cls.Classify(ctx, sql)...)
			}
			f := footprint.Combine(stmts)
			if u.Copy != 0 || d.FunctionCall || (!u.Completed && !u.Prepare) {
				f.Global = true
			}
			out[u.Ref] = c.event(u, f)
		}
	}
	return out
}

// connTx follows one connection's transaction state.
type connTx struct {
	session              string // the session's default isolation
	status               byte   // before the next unit: I, T or E
	level                string // the open transaction's isolation
	started              bool   // the open transaction ran a statement (took its snapshot)
	global               bool   // the open transaction ran a global unit: its end is global too
	reads, writes, locks footprint.Set
}

// event turns a unit's footprint into its reduction event, given the
// transaction it runs in, and moves the state past it.
func (c *connTx) event(u *sched.UnitRecord, f footprint.Unit) search.Event {
	if f.SessionIsolation != "" {
		c.session = f.SessionIsolation
	}
	inTx := c.status != 'I'
	if !inTx {
		c.level, c.started, c.global = c.session, false, false
		c.reads, c.writes, c.locks = footprint.Set{}, footprint.Set{}, footprint.Set{}
	}
	if f.Isolation != "" && !c.started {
		c.level = f.Isolation
	}
	ev := search.Event{Kind: search.Whole, Global: f.Global,
		Reads: f.Reads.Sorted(), Locks: f.Locks.Sorted(), Writes: f.Writes.Sorted(),
		Serializable: c.level == "serializable"}
	if (f.DML || f.Global) && !c.started {
		ev.Snapshot = c.level != "read committed"
		c.started = true
	}
	c.global = c.global || f.Global
	c.reads.Add(f.Reads.Sorted()...)
	c.writes.Add(f.Writes.Sorted()...)
	c.locks.Add(f.Locks.Sorted()...)
	after := u.TxStatus
	if after == 0 {
		after = c.status // did not complete: the unit is Global anyway
	}
	if after == 'I' && (inTx || f.DML || f.Global || f.Ends) {
		ev.EndsTx = true
		ev.TxReads, ev.TxWrites, ev.TxLocks = c.reads.Sorted(), c.writes.Sorted(), c.locks.Sorted()
		// What a global unit did (a lock, a function's writes) is released
		// or made visible here: nothing is known of it.
		ev.Global = ev.Global || c.global
	}
	c.status = after
	return ev
}

// sessionIsolation is a connection's default isolation: a start-up
// parameter (or -c in options) when the driver sent one, else the
// server's.
func sessionIsolation(lanes []sched.LaneInfo, k [2]int, server string) string {
	for _, l := range lanes {
		if l.Actor != k[0] || l.Ordinal != k[1] {
			continue
		}
		for i := 0; i+1 < len(l.Params); i += 2 {
			name, v := l.Params[i], l.Params[i+1]
			switch {
			case name == "default_transaction_isolation":
				if lvl := footprint.NormalIsolation(v); lvl != "" {
					return lvl
				}
				return "serializable" // not understood: the strictest
			case name == "options" && strings.Contains(v, "default_transaction_isolation"):
				return "serializable"
			}
		}
	}
	return server
}

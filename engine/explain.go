package engine

import (
	"context"
	"errors"
	"fmt"
	"github.com/pginterleave/interleave/sched"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/explain"
	"github.com/pginterleave/interleave/footprint"
)

// ExplainOptions configure Explain.
type ExplainOptions struct {
	Options
	// MaxReversals bounds the reversals run to find the critical pair
	// (default 6).
	MaxReversals int
	// Retries is how many times an actor that fails with a serialization
	// failure or a deadlock at a stronger level is run again (default 3).
	Retries int
}

// Explain says what went wrong in the failing order rec recorded: the
// dependency cycle between its transactions and the anomaly's name (from
// what each command touched, asked of PostgreSQL on a database after the
// scenario's setup), the critical pair (reversals run until one passes)
// and the fix class (the order run again with every actor's sessions at
// REPEATABLE READ and at SERIALIZABLE, actors that fail with 40001 or
// 40P01 run again).
func Explain(ctx context.Context, sc Scenario, rec *artifact.Artifact, opts ExplainOptions) (*explain.Explanation, error) {
	o, err := begin(&sc, opts.Options)
	if err != nil {
		return nil, err
	}
	if opts.MaxReversals <= 0 {
		opts.MaxReversals = DefaultMaxReversals
	}
	if opts.Retries <= 0 {
		opts.Retries = 3
	}
	if rec.Scenario.Name != sc.Name {
		return nil, fmt.Errorf("the artifact records scenario %q, not %q", rec.Scenario.Name, sc.Name)
	}
	if got, want := strings.Join(sc.ActorNames(), ","), strings.Join(rec.Scenario.Actors, ","); got != want {
		return nil, fmt.Errorf("the scenario's actors are %s; the recording has %s", got, want)
	}
	if !rec.Outcome.Failed() {
		return nil, fmt.Errorf("the artifact records a %s, not a failure: there is nothing to explain", rec.Outcome.Kind)
	}
	e, err := openEnv(ctx, o, 1)
	if err != nil {
		return nil, err
	}
	defer e.close()
	w, err := e.newWorker(ctx)
	if err != nil {
		return nil, err
	}
	defer w.close(context.Background())

	cmds, err := w.explainCommands(ctx, &sc, rec)
	if err != nil {
		return nil, err
	}
	x := explain.Analyze(sc.Name, rec.Outcome.Message, cmds, "")
	explicit := map[string]bool{}
	for _, c := range cmds {
		if c.Isolation != "" {
			explicit[c.Isolation] = true
		}
	}
	for _, level := range []string{"read committed", "repeatable read", "serializable"} {
		if explicit[level] {
			x.Notes = append(x.Notes, fmt.Sprintf("the code names its own isolation level (%s) in BEGIN or SET TRANSACTION, which the start-up option default_transaction_isolation does not change: the level runs keep it for those transactions", strings.ToUpper(level)))
		}
	}
	names := sc.ActorNames()
	victims := victimsOf(rec, names)

	if f := recordedFaults(rec); f != "" {
		x.Notes = append(x.Notes, "the recording injected a fault ("+f+"), which explain does not inject again: no critical pair or isolation level is shown; replay the artifact to see the failure (docs/faults.md)")
		x.Fix = &explain.Fix{Class: explain.FixUnknown, Advice: "no verdict: the failure needs a fault, which explain's runs do not inject"}
		return x, ctx.Err()
	}
	// The recorded order first, as it is: the reversals and the level runs
	// are evidence only if it still fails the same way with this code.
	base := w.runPlanned(ctx, &sc, func() sched.Policy { return &orderPolicy{want: recordedOrder(rec), names: names} }, victims)
	if !base.Outcome.Failed() || artifact.FailureFingerprint(string(base.Outcome), base.Message) != rec.Outcome.FailureFingerprint {
		how := string(base.Outcome)
		if m := firstLine(base.Message); m != "" {
			how += " (" + m + ")"
		}
		x.Notes = append(x.Notes, fmt.Sprintf("the recorded order run again by explain ended %s, not with the recorded failure (the code or the database changed since it was recorded, or the recording released pairs of commands, which explain does not): no critical pair or isolation level is shown", how))
		x.Fix = &explain.Fix{Class: explain.FixUnknown, Advice: "no verdict: the recorded order does not fail again when explain runs it"}
		return x, ctx.Err()
	}

	// The critical pair: reversals of dependent commands, cycle first.
	pair := w.criticalPair(ctx, &sc, rec, x, opts.MaxReversals)
	x.CriticalPair = pair
	if !pair.Found {
		x.Notes = append(x.Notes, noPairNote(pair))
	}

	// The fix class: the same order at stronger levels.
	for _, level := range []string{"repeatable read", "serializable"} {
		if ctx.Err() != nil {
			break
		}
		x.Levels = append(x.Levels, w.levelRun(ctx, &sc, rec, level, opts.Retries))
	}
	if ctx.Err() != nil {
		return x, ctx.Err()
	}
	x.Fix = explain.Verdict(x.Levels, x.Cycle)
	if x.Fix.Class == explain.FixLocking && len(explicit) > 0 {
		x.Fix.Advice = "a stronger isolation level set at start-up does not reach these transactions, because the code names its own level in BEGIN or SET TRANSACTION: lock the row (FOR UPDATE), add a constraint, or widen the transaction; or name SERIALIZABLE in the code, retry on 40001, and run explain again"
	}
	if f := recordedAbort(rec); f != nil {
		x.Fix = f
	}
	return x, nil
}

// recordedAbort is the fix when the recorded failure is PostgreSQL's own
// abort of a transaction (a deadlock or a serialization failure the code
// did not retry): the level runs then show what a retry does, not what a
// level prevents.
func recordedAbort(rec *artifact.Artifact) *explain.Fix {
	for _, u := range rec.Units {
		switch u.SQLState {
		case "40P01":
			return &explain.Fix{Class: explain.FixRetry, Advice: fmt.Sprintf("the failure is a deadlock: PostgreSQL aborted %s's transaction at step %d (40P01) at every isolation level; retry the transaction on 40P01, or take the locks in one order", u.Actor, u.ReleaseStep)}
		case "40001":
			return &explain.Fix{Class: explain.FixRetry, Advice: fmt.Sprintf("the failure is a serialization failure PostgreSQL raised in %s's transaction at step %d (40001): the isolation level already prevents the anomaly; retry the transaction on 40001", u.Actor, u.ReleaseStep)}
		}
	}
	return nil
}

// explainCommands describes each executed unit of rec with what it
// touched, classified on the worker's database after the scenario's setup.
func (w *worker) explainCommands(ctx context.Context, sc *Scenario, rec *artifact.Artifact) ([]explain.Command, error) {
	if err := w.reset(ctx); err != nil {
		return nil, fmt.Errorf("reset the database: %w", err)
	}
	if sc.Setup != nil {
		if err := protect("setup", func() error { return sc.Setup(ctx, w.control) }); err != nil {
			return nil, fmt.Errorf("setup failed: %w", err)
		}
	}
	w.fresh = false
	cls := footprint.NewClassifier(w.control, w.env.footprints)
	// A statement prepared in a unit of its own (Parse, Describe) belongs
	// to the next unit of its connection.
	prepared := map[[3]any]artifact.Unit{}
	for _, u := range rec.Units {
		if u.Prepare && u.ReleaseStep >= 0 {
			prepared[[3]any{u.Actor, u.Conn, u.Unit + 1}] = u
		}
	}
	var units []artifact.Unit
	for _, u := range rec.Units {
		if u.ReleaseStep >= 0 && !u.Prepare && len(u.SQL) > 0 {
			units = append(units, u)
		}
	}
	sort.SliceStable(units, func(i, j int) bool { return units[i].ReleaseStep < units[j].ReleaseStep })
	var out []explain.Command
	for _, u := range units {
		c := explain.Command{Step: u.ReleaseStep, Actor: u.Actor, Conn: u.Conn, Unit: u.Unit, SQL: strings.Join(u.SQL, "; "),
			Start: u.ReleasedUS, End: u.CompletedUS, SQLState: u.SQLState, TxStatus: u.TxStatus, Kind: explain.KindSession}
		if p, ok := prepared[[3]any{u.Actor, u.Conn, u.Unit}]; ok {
			c.Prepared, c.PreparedStep = p.ReleasedUS, p.ReleaseStep
		}
		if !u.Completed {
			c.End = 1 << 62
		}
		for i, sql := range u.SQL {
			var params []string
			if len(u.Params) == len(u.SQL) {
				for _, p := range u.Params[i] {
					params = append(params, paramText(p))
				}
			}
			pieces, ok := footprint.Split(sql)
			if !ok || len(pieces) == 0 {
				pieces = []string{sql}
			}
			for _, piece := range pieces {
				for _, st := range cls.Classify(ctx, piece) {
					addStatement(&c, st, piece, params)
				}
			}
		}
		out = append(out, c)
	}
	return out, ctx.Err()
}

// addStatement folds one classified statement into c.
func addStatement(c *explain.Command, st footprint.Statement, sql string, params []string) {
	switch st.Kind {
	case footprint.Global:
		c.Kind = explain.KindGlobal
		return
	case footprint.Begin:
		if c.Kind == explain.KindSession {
			c.Kind = explain.KindBegin
		}
	case footprint.Commit:
		c.Kind = explain.KindCommit
	case footprint.Rollback:
		c.Kind = explain.KindRollback
	case footprint.DML:
		if c.Kind != explain.KindGlobal && c.Kind != explain.KindCommit && c.Kind != explain.KindRollback {
			c.Kind = explain.KindDML
		}
	}
	if st.Isolation != "" {
		c.Isolation = st.Isolation
	}
	rels := map[string]bool{}
	for _, set := range [][]string{st.Reads, st.Writes} {
		for _, r := range set {
			if !strings.HasPrefix(r, "sequence ") && !pseudoName(r) {
				rels[r] = true
			}
		}
	}
	var key map[string]string
	if len(rels) == 1 {
		key = explain.Keys(sql, params)
	}
	insert := strings.EqualFold(firstWord(sql), "insert")
	target := explain.Target(sql)
	written := map[string]bool{}
	for _, r := range st.Writes {
		if strings.HasPrefix(r, "sequence ") || pseudoName(r) {
			continue
		}
		written[r] = true
		a := explain.Access{Relation: r, Key: key, Insert: insert, Locked: true}
		if target != "" && r != target && !strings.HasSuffix(r, "."+target) {
			// Written through a trigger, a rule or a foreign key's action.
			a = explain.Access{Relation: r, Locked: true, Indirect: true}
		}
		c.Writes = append(c.Writes, a)
	}
	locked := map[string]bool{}
	for _, r := range st.Locks {
		locked[r] = true
	}
	for _, r := range st.Reads {
		if strings.HasPrefix(r, "sequence ") || written[r] || pseudoName(r) {
			continue
		}
		c.Reads = append(c.Reads, explain.Access{Relation: r, Key: key, Locked: locked[r]})
	}
}

// pseudoName: a footprint name that is no relation (the catalogs, the
// advisory locks), which an explanation does not list as one.
func pseudoName(r string) bool { return r == footprint.Catalogs || r == footprint.AdvisoryLocks }

func firstWord(sql string) string {
	f := strings.Fields(strings.TrimLeft(sql, "( \t\r\n"))
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// paramText is a bind parameter as a key value: its integer reading, its
// text, or "\x00" (unknown) for other binary values.
func paramText(p artifact.Param) string {
	switch {
	case p.Null:
		return "\x00"
	case p.Int != nil:
		return strconv.FormatInt(*p.Int, 10)
	case !p.Binary && p.Hex == "":
		return p.Text
	}
	return "\x00"
}

// DefaultMaxReversals bounds the reversals run to find a critical pair,
// by explain (ExplainOptions.MaxReversals) and by a search that saves a
// failure (Options.Output.Reversals).
const DefaultMaxReversals = 6

// criticalPair runs reversals of two dependent commands of the failing
// order rec recorded (x is its graph), cycle first, at most max, until one
// passes: that pair is critical.
func (w *worker) criticalPair(ctx context.Context, sc *Scenario, rec *artifact.Artifact, x *explain.Explanation, max int) *explain.Pair {
	names := sc.ActorNames()
	victims := victimsOf(rec, names)
	pair := &explain.Pair{Tried: []explain.Trial{}}
	for _, c := range reversalCandidates(x) {
		if len(pair.Tried) >= max || ctx.Err() != nil {
			break
		}
		order, ok := reversed(rec, c[0], c[1])
		if !ok {
			continue
		}
		r := w.runPlanned(ctx, sc, func() sched.Policy { return &orderPolicy{want: order, names: names} }, victims)
		pair.Tried = append(pair.Tried, explain.Trial{First: c[0], Second: c[1], Outcome: string(r.Outcome), Message: r.Message})
		if r.Outcome == OutcomePass {
			pair.Found = true
			pair.First, pair.Second = c[0], c[1]
			break
		}
	}
	if pair.Found {
		pair.FirstActor, pair.FirstSQL = unitAt(rec, pair.First)
		pair.SecondActor, pair.SecondSQL = unitAt(rec, pair.Second)
	}
	return pair
}

// noPairNote is the note when no reversal passed.
func noPairNote(p *explain.Pair) string {
	return fmt.Sprintf("no reversal of two dependent commands made the order pass (%d tried): more than one pair of commands takes part (three actors or more), or the failure does not come from an order of two commands", len(p.Tried))
}

// unitAt is the actor and SQL of the unit rec released at step.
func unitAt(rec *artifact.Artifact, step int) (string, string) {
	for _, u := range rec.Units {
		if u.ReleaseStep == step {
			if u.Prepare {
				return u.Actor, "prepare " + strings.Join(u.SQL, "; ")
			}
			return u.Actor, strings.Join(u.SQL, "; ")
		}
	}
	return "", ""
}

// reversalCandidates are the pairs of steps to reverse, in the order to
// try them: the cycle's dependencies (for an anti-dependency the read and
// the writer's commit), then the other dependencies between actors, the
// closest first.
func reversalCandidates(x *explain.Explanation) [][2]int {
	var out [][2]int
	seen := map[[2]int]bool{}
	add := func(e explain.Edge) {
		a, b := e.FromStep, e.ToStep
		if e.Kind == explain.RW && e.SnapshotStep > 0 {
			a = e.SnapshotStep // the read saw the snapshot its transaction took there
		}
		if e.Kind == explain.RW && e.CommitStep > a {
			b = e.CommitStep
		}
		if a > b {
			a, b = b, a
		}
		p := [2]int{a, b}
		if a != b && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, e := range x.Cycle {
		add(e)
	}
	rest := append([]explain.Edge(nil), x.Edges...)
	sort.SliceStable(rest, func(i, j int) bool {
		return abs(rest[i].ToStep-rest[i].FromStep) < abs(rest[j].ToStep-rest[j].FromStep)
	})
	for _, e := range rest {
		if actorOf(e.From) != actorOf(e.To) {
			add(e)
		}
	}
	return out
}

func actorOf(txID string) string {
	if i := strings.LastIndexByte(txID, ':'); i >= 0 {
		return txID[:i]
	}
	return txID
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// reversed is rec's order with the unit released at step second moved to
// just before the one released at step first, together with the units of
// second's connection released between them (they must precede it).
func reversed(rec *artifact.Artifact, first, second int) ([]artifact.UnitRef, bool) {
	order := recordedOrder(rec)
	step := map[[3]any]int{}
	for _, u := range rec.Units {
		step[[3]any{u.Actor, u.Conn, u.Unit}] = u.ReleaseStep
	}
	at := func(s int) int {
		for i, r := range order {
			if step[[3]any{r.Actor, r.Conn, r.Unit}] == s {
				return i
			}
		}
		return -1
	}
	i, j := at(first), at(second)
	if i < 0 || j < 0 || i >= j {
		return nil, false
	}
	// A preparation is released as soon as it is pending, right after its
	// session's previous unit: to come before it, come before that unit.
	prep := map[[3]any]bool{}
	for _, u := range rec.Units {
		prep[[3]any{u.Actor, u.Conn, u.Unit}] = u.Prepare
	}
	for prep[[3]any{order[i].Actor, order[i].Conn, order[i].Unit}] {
		k := i - 1
		for k >= 0 && (order[k].Actor != order[i].Actor || order[k].Conn != order[i].Conn) {
			k--
		}
		if k < 0 {
			break
		}
		i = k
	}
	lane := [2]any{order[j].Actor, order[j].Conn}
	if lane == [2]any{order[i].Actor, order[i].Conn} {
		return nil, false // one session's own order cannot be reversed
	}
	var moved, kept []artifact.UnitRef
	for k := i; k <= j; k++ {
		if [2]any{order[k].Actor, order[k].Conn} == lane {
			moved = append(moved, order[k])
		} else {
			kept = append(kept, order[k])
		}
	}
	out := append(append(append(append([]artifact.UnitRef(nil), order[:i]...), moved...), kept...), order[j+1:]...)
	return out, true
}

// levelRun runs rec's order with every actor session at level; an actor
// that fails with a serialization failure (40001) or a deadlock (40P01) is
// run again, up to retries times, as code that retries would.
func (w *worker) levelRun(ctx context.Context, sc *Scenario, rec *artifact.Artifact, level string, retries int) explain.LevelRun {
	w.isolation = level
	defer func() { w.isolation = "" }()
	retrying := *sc
	retrying.Actors = make([]Actor, len(sc.Actors))
	for i, a := range sc.Actors {
		run := a.Run
		retrying.Actors[i] = Actor{Name: a.Name, Run: func(ctx context.Context, conn string) (any, error) {
			v, err := run(ctx, conn)
			for k := 0; k < retries && retryable(err) && ctx.Err() == nil; k++ {
				v, err = run(ctx, conn)
			}
			return v, err
		}}
	}
	names := sc.ActorNames()
	r := w.runPlanned(ctx, &retrying, func() sched.Policy { return &orderPolicy{want: recordedOrder(rec), names: names} }, victimsOf(rec, names))
	out := explain.LevelRun{Level: level, Outcome: string(r.Outcome), Message: r.Message, Held: r.Outcome == OutcomePass}
	if r.Sched != nil {
		a := w.env.recordAttempt(&retrying, "explain", r)
		for _, u := range a.Units {
			if u.SQLState == "40001" || u.SQLState == "40P01" {
				out.Errors = append(out.Errors, explain.LevelError{Actor: u.Actor, Step: u.ReleaseStep, SQL: strings.Join(u.SQL, "; "), SQLState: u.SQLState, Message: u.Error})
			}
		}
	}
	return out
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// retryable: a serialization failure or a deadlock, which code at a
// stronger isolation level retries.
func retryable(err error) bool {
	if err == nil {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "40001" || pe.Code == "40P01"
	}
	// A command actor (psql, a script) reports PostgreSQL's message, not
	// always its code.
	s := err.Error()
	return strings.Contains(s, "40001") || strings.Contains(s, "40P01") ||
		strings.Contains(s, "could not serialize access") || strings.Contains(s, "deadlock detected")
}

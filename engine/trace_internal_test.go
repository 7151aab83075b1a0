package engine

import (
	"slices"
	"testing"
	"time"

	"github.com/pginterleave/interleave/footprint"
	"github.com/pginterleave/interleave/sched"
	"github.com/pginterleave/interleave/search"
)

func dml(reads, writes []string) footprint.Statement {
	return footprint.Statement{Kind: footprint.DML, Reads: reads, Writes: writes}
}

func newConn() *connTx {
	def := footprint.Vals{Stmts: map[string]string{}, Isolation: "read committed"}
	c := &connTx{defaults: def, sess: def.Clone(), status: 'I', prepared: footprint.Set{}}
	c.tx = c.sess.Clone()
	return c
}

// TestLockCheckMakesTheRestOfTheTransactionGlobal: a unit whose backend
// holds a relation lock outside its transaction's footprint becomes global,
// and so do the later units of its transaction and its end; a unit whose
// locks lie inside is left alone.
func TestLockCheckMakesTheRestOfTheTransactionGlobal(t *testing.T) {
	c := newConn()
	begin := c.event(&sched.UnitRecord{TxStatus: 'T'}, []footprint.Statement{{Kind: footprint.Begin}}, false, []string{})
	in := c.event(&sched.UnitRecord{TxStatus: 'T'}, []footprint.Statement{dml([]string{"public.a"}, nil)}, false, []string{"public.a"})
	if begin.Global || in.Global || c.corrections != 0 {
		t.Fatalf("locks inside the footprint: begin %v, select %v, corrections %d", begin.Global, in.Global, c.corrections)
	}
	out := c.event(&sched.UnitRecord{TxStatus: 'T'}, []footprint.Statement{dml([]string{"public.a"}, nil)}, false, []string{"public.a", "tenant.a"})
	next := c.event(&sched.UnitRecord{TxStatus: 'T'}, []footprint.Statement{{Kind: footprint.Session}}, false, nil)
	end := c.event(&sched.UnitRecord{TxStatus: 'I'}, []footprint.Statement{{Kind: footprint.Commit}}, false, nil)
	if !out.Global || !next.Global || !end.Global || !end.EndsTx || c.corrections != 1 {
		t.Fatalf("a lock outside: unit %v, next %v, end %v (ends %v), corrections %d", out.Global, next.Global, end.Global, end.EndsTx, c.corrections)
	}
	after := c.event(&sched.UnitRecord{TxStatus: 'I'}, []footprint.Statement{dml([]string{"public.b"}, nil)}, false, nil)
	if after.Global {
		t.Fatal("the next transaction stayed global")
	}
}

// TestTransactionsFollowedStatementByStatement: COMMIT; BEGIN in one unit
// ends a transaction there; a multi-statement Query's implicit
// transaction ends with the unit; a SET of a rolled-back transaction is
// undone, SET LOCAL ends with its transaction, RESET returns to the
// connection's default.
func TestTransactionsFollowedStatementByStatement(t *testing.T) {
	c := newConn()
	c.event(&sched.UnitRecord{TxStatus: 'T'}, []footprint.Statement{{Kind: footprint.Begin}}, false, nil)
	c.event(&sched.UnitRecord{TxStatus: 'T'}, []footprint.Statement{dml(nil, []string{"public.t"})}, false, nil)
	cp := c.event(&sched.UnitRecord{TxStatus: 'T'}, []footprint.Statement{{Kind: footprint.Commit}, {Kind: footprint.Begin}}, false, nil)
	if !cp.EndsTx || len(cp.TxWrites) != 1 || cp.TxWrites[0] != "public.t" || !c.open {
		t.Fatalf("COMMIT; BEGIN: ends %v, writes %v, open after %v", cp.EndsTx, cp.TxWrites, c.open)
	}
	c = newConn()
	multi := c.event(&sched.UnitRecord{TxStatus: 'I'}, []footprint.Statement{dml(nil, []string{"public.t"}), dml([]string{"public.u"}, nil)}, false, nil)
	if !multi.EndsTx || c.open {
		t.Fatalf("implicit transaction: ends %v, open %v", multi.EndsTx, c.open)
	}
	set := footprint.Statement{Kind: footprint.Session, Sets: "search_path", Text: "SET search_path TO tenant"}
	c.event(&sched.UnitRecord{TxStatus: 'T'}, []footprint.Statement{{Kind: footprint.Begin}, set}, false, nil)
	if c.tx.Stmts["search_path"] != set.Text {
		t.Fatal("a SET inside a transaction is in effect in it")
	}
	c.event(&sched.UnitRecord{TxStatus: 'I'}, []footprint.Statement{{Kind: footprint.Rollback}}, false, nil)
	if c.tx.Stmts["search_path"] != "" || c.sess.Stmts["search_path"] != "" {
		t.Fatal("a rolled-back SET is undone")
	}
	c.event(&sched.UnitRecord{TxStatus: 'I'}, []footprint.Statement{set}, false, nil)
	if c.sess.Stmts["search_path"] != set.Text {
		t.Fatal("a SET outside a transaction lasts")
	}
	local := footprint.Statement{Kind: footprint.Session, Sets: "search_path", Text: "SET LOCAL search_path TO other", Local: true}
	c.event(&sched.UnitRecord{TxStatus: 'T'}, []footprint.Statement{{Kind: footprint.Begin}, local}, false, nil)
	if c.tx.Stmts["search_path"] != local.Text {
		t.Fatal("SET LOCAL is in effect in its transaction")
	}
	c.event(&sched.UnitRecord{TxStatus: 'I'}, []footprint.Statement{{Kind: footprint.Commit}}, false, nil)
	if c.tx.Stmts["search_path"] != set.Text {
		t.Fatalf("SET LOCAL ends with its transaction: %q", c.tx.Stmts["search_path"])
	}
	c.event(&sched.UnitRecord{TxStatus: 'I'}, []footprint.Statement{{Kind: footprint.Session, Sets: "search_path", Reset: true}}, false, nil)
	if c.tx.Stmts["search_path"] != "" {
		t.Fatal("RESET returns to the default")
	}
	iso := footprint.Statement{Kind: footprint.Session, SessionIsolation: "repeatable read"}
	c.event(&sched.UnitRecord{TxStatus: 'I'}, []footprint.Statement{iso}, false, nil)
	first := c.event(&sched.UnitRecord{TxStatus: 'T'}, []footprint.Statement{{Kind: footprint.Begin}, dml([]string{"public.t"}, nil)}, false, nil)
	if !first.Snapshot {
		t.Fatal("the first statement of a REPEATABLE READ transaction takes the snapshot")
	}
	opaque := footprint.Statement{Kind: footprint.Global, Why: "calls f", Opaque: true}
	c.event(&sched.UnitRecord{TxStatus: 'T'}, []footprint.Statement{opaque}, false, nil)
	if c.tx.State().Unknown == "" {
		t.Fatal("a user function makes the session's state unknown")
	}
	last := c.event(&sched.UnitRecord{TxStatus: 'T'}, []footprint.Statement{dml([]string{"public.t"}, nil)}, false, nil)
	c.closeInTx(&last)
	if !last.EndsTx || !last.Global {
		t.Fatalf("a connection closed in a global transaction: ends %v global %v", last.EndsTx, last.Global)
	}
}

// TestReadOnlyDeferrableReadsASnapshot: a SERIALIZABLE READ ONLY
// DEFERRABLE transaction's statements take part in no serialization
// conflict (they read a safe snapshot); a SERIALIZABLE one does, and so
// does a deferrable one whose modes a statement inside may have changed.
func TestReadOnlyDeferrableReadsASnapshot(t *testing.T) {
	read := dml([]string{"public.acct"}, nil)
	for _, tc := range []struct {
		name         string
		begin        footprint.Statement
		inside       []footprint.Statement
		serializable bool
	}{
		{"deferrable", footprint.Statement{Kind: footprint.Begin, Isolation: "serializable", SafeSnapshot: true}, nil, false},
		{"serializable", footprint.Statement{Kind: footprint.Begin, Isolation: "serializable"}, nil, true},
		{"deferrable, then SET TRANSACTION", footprint.Statement{Kind: footprint.Begin, Isolation: "serializable", SafeSnapshot: true},
			[]footprint.Statement{{Kind: footprint.Session}}, true},
	} {
		c := newConn()
		c.event(&sched.UnitRecord{TxStatus: 'T'}, append([]footprint.Statement{tc.begin}, tc.inside...), false, nil)
		ev := c.event(&sched.UnitRecord{TxStatus: 'T'}, []footprint.Statement{read}, false, nil)
		second := c.event(&sched.UnitRecord{TxStatus: 'T'}, []footprint.Statement{read}, false, nil)
		end := c.event(&sched.UnitRecord{TxStatus: 'I'}, []footprint.Statement{{Kind: footprint.Commit}}, false, nil)
		if ev.Serializable != tc.serializable || end.Serializable != tc.serializable || !ev.Snapshot {
			t.Errorf("%s: read serializable %v, end serializable %v, snapshot %v; want serializable %v and a snapshot", tc.name, ev.Serializable, end.Serializable, ev.Snapshot, tc.serializable)
		}
		// The safe snapshot's statement waits on whichever serializable
		// transactions run: it depends on everything; the next does not.
		if ev.Global != !tc.serializable || second.Global {
			t.Errorf("%s: the snapshot's statement global %v, the next %v; want %v, false", tc.name, ev.Global, second.Global, !tc.serializable)
		}
	}
}

// TestRecheckedOnlyInReadCommittedOnLockedRows: a statement reads a row
// again after a lock wait only in READ COMMITTED, and only when it locks or
// writes every row it reads, each named by key, and nothing else.
func TestRecheckedOnlyInReadCommittedOnLockedRows(t *testing.T) {
	r1, r2 := footprint.RowName("public.acct", "1"), footprint.RowName("public.acct", "2")
	forUpdate := footprint.Statement{Kind: footprint.DML, Reads: []string{r1}, Locks: []string{r1}}
	for _, tc := range []struct {
		name  string
		begin footprint.Statement
		stmt  footprint.Statement
		want  bool
	}{
		{"FOR UPDATE of a row, READ COMMITTED", footprint.Statement{Kind: footprint.Begin}, forUpdate, true},
		{"UPDATE of a row", footprint.Statement{Kind: footprint.Begin}, dml([]string{r1}, []string{r1}), true},
		{"REPEATABLE READ", footprint.Statement{Kind: footprint.Begin, Isolation: "repeatable read"}, forUpdate, false},
		{"SERIALIZABLE", footprint.Statement{Kind: footprint.Begin, Isolation: "serializable"}, forUpdate, false},
		{"a plain read", footprint.Statement{Kind: footprint.Begin}, dml([]string{r1}, nil), false},
		{"a read of another row", footprint.Statement{Kind: footprint.Begin}, footprint.Statement{Kind: footprint.DML, Reads: []string{r1, r2}, Locks: []string{r1}}, false},
		{"a whole table", footprint.Statement{Kind: footprint.Begin}, dml([]string{"public.acct"}, []string{"public.acct"}), false},
		{"a sequence", footprint.Statement{Kind: footprint.Begin}, dml([]string{r1}, []string{r1, "sequence public.s"}), false},
	} {
		tc.stmt.LocksExact, tc.stmt.KeyOnly = true, true
		c := newConn()
		c.event(&sched.UnitRecord{TxStatus: 'T'}, []footprint.Statement{tc.begin}, false, nil)
		ev := c.event(&sched.UnitRecord{TxStatus: 'T'}, []footprint.Statement{tc.stmt}, false, nil)
		if got := len(ev.Rechecked) > 0; got != tc.want {
			t.Errorf("%s: rechecked %q, want some: %v", tc.name, ev.Rechecked, tc.want)
		}
	}
	// Rows a statement locks not known exactly (FOR UPDATE OF, a
	// sublink: footprint.Statement.LocksExact): not followed.
	c := newConn()
	c.event(&sched.UnitRecord{TxStatus: 'T'}, []footprint.Statement{{Kind: footprint.Begin}}, false, nil)
	if ev := c.event(&sched.UnitRecord{TxStatus: 'T'}, []footprint.Statement{forUpdate}, false, nil); len(ev.Rechecked) > 0 {
		t.Errorf("locks not known exactly: rechecked %q", ev.Rechecked)
	}
	forUpdate.LocksExact = true
	// A condition beside the key (footprint.Statement.KeyOnly): checked
	// against the snapshot's row first, it may not wait at all (case
	// rc-hold-qual-fails-at-snapshot).
	c = newConn()
	c.event(&sched.UnitRecord{TxStatus: 'T'}, []footprint.Statement{{Kind: footprint.Begin}}, false, nil)
	if ev := c.event(&sched.UnitRecord{TxStatus: 'T'}, []footprint.Statement{forUpdate}, false, nil); len(ev.Rechecked) > 0 {
		t.Errorf("a condition beside the key: rechecked %q", ev.Rechecked)
	}
	forUpdate.KeyOnly = true
	// Two statements in one unit: not followed.
	c = newConn()
	ev := c.event(&sched.UnitRecord{TxStatus: 'I'}, []footprint.Statement{forUpdate, forUpdate}, false, nil)
	if len(ev.Rechecked) > 0 {
		t.Errorf("two statements: rechecked %q", ev.Rechecked)
	}
}

// A REPEATABLE READ transaction's snapshot is known by everything the
// transaction touched until it ended; not for SERIALIZABLE, a global
// statement, or a transaction still open.
func TestRepeatableReadSnapshotIsKnownByItsTransaction(t *testing.T) {
	r1, r2 := footprint.RowName("public.acct", "1"), footprint.RowName("public.acct", "2")
	begin := func(iso string) footprint.Statement {
		return footprint.Statement{Kind: footprint.Begin, Isolation: iso}
	}
	commit := footprint.Statement{Kind: footprint.Commit}
	for _, tc := range []struct {
		name  string
		stmts [][]footprint.Statement // units: the first takes the snapshot
		want  []string                // nil: not known
	}{
		{"repeatable read", [][]footprint.Statement{{begin("repeatable read"), dml([]string{r1}, nil)}, {dml([]string{r2}, []string{r2})}, {commit}}, []string{r1, r2}},
		{"serializable", [][]footprint.Statement{{begin("serializable"), dml([]string{r1}, nil)}, {commit}}, nil},
		{"a global statement", [][]footprint.Statement{{begin("repeatable read"), dml([]string{r1}, nil)}, {{Kind: footprint.Global}}, {commit}}, nil},
		{"still open", [][]footprint.Statement{{begin("repeatable read"), dml([]string{r1}, nil)}, {dml([]string{r2}, nil)}}, nil},
	} {
		c := newConn()
		var snaps []int
		for i, u := range tc.stmts {
			status := byte('T')
			if i == len(tc.stmts)-1 && u[len(u)-1].Kind == footprint.Commit {
				status = 'I'
			}
			ev := c.event(&sched.UnitRecord{TxStatus: status}, u, false, nil)
			if i == 0 {
				if !ev.Snapshot {
					t.Fatalf("%s: the first unit takes no snapshot", tc.name)
				}
				snaps = c.snaps
			}
		}
		got, known := c.snapshotOf(snaps)
		if known != (tc.want != nil) || known && !slices.Equal(got, tc.want) {
			t.Errorf("%s: snapshotOf = %q, %v; want %q", tc.name, got, known, tc.want)
		}
	}
}

// TestSessionAdvisoryLocksEndWithTheirConnection: a connection that called
// an advisory lock function releases its session locks when it ends,
// which is no unit: its last unit and every later unit of its actor touch
// the advisory locks; earlier units and other actors' do not.
func TestSessionAdvisoryLocksEndWithTheirConnection(t *testing.T) {
	unit := func(actor, conn, n int, at time.Duration) *sched.UnitRecord {
		return &sched.UnitRecord{Ref: sched.UnitRef{Actor: actor, Conn: conn, Unit: n}, ReleasedAt: at}
	}
	res := &sched.Result{Units: []*sched.UnitRecord{
		unit(0, 0, 0, 1), unit(0, 0, 1, 2), unit(1, 0, 0, 3), unit(0, 1, 0, 4), unit(0, 1, 1, 5), unit(1, 0, 1, 6)}}
	out := map[sched.UnitRef]search.Event{}
	for _, u := range res.Units {
		out[u.Ref] = search.Event{Ref: u.Ref, Reads: []string{"public.t"}}
	}
	sessionAdvisoryLocks(res, out, map[[2]int]sched.UnitRef{{0, 0}: {Actor: 0, Conn: 0, Unit: 1}})
	for _, u := range res.Units {
		ev := out[u.Ref]
		want := u.Ref.Actor == 0 && u.ReleasedAt >= 2
		got := slices.Contains(ev.Writes, footprint.AdvisoryLocks) && slices.Contains(ev.Reads, footprint.AdvisoryLocks) &&
			slices.Contains(ev.Immediate, footprint.AdvisoryLocks)
		if got != want {
			t.Errorf("%s: touches the advisory locks %v, want %v (%+v)", u.Ref, got, want, ev)
		}
		if !slices.Contains(ev.Reads, "public.t") {
			t.Errorf("%s: lost its own reads: %v", u.Ref, ev.Reads)
		}
	}
}

// TestOnlyCreatedTablesMayChangeTheSchema: an attempt that ran a global
// statement is classified only if its schema differs from setup's by the
// lines of the tables it created.
func TestOnlyCreatedTablesMayChangeTheSchema(t *testing.T) {
	before := []string{"rel public.reg r ", "col public.reg.id integer notnull=true default=<nil>"}
	created := append(append([]string{}, before...), "rel public.widgets r ", "rel public.widgets_pkey i CREATE UNIQUE INDEX widgets_pkey ON public.widgets USING btree (id)")
	for _, tc := range []struct {
		after   []string
		created []string
		want    bool
	}{
		{before, nil, true},
		{created, []string{"widgets"}, true},
		{created, nil, false},
		{append(append([]string{}, before...), "rel side.reg r "), []string{"widgets"}, false},
		{before[:1], nil, false},
		{append(append([]string{}, before...), "trg CREATE TRIGGER t AFTER INSERT ON public.reg"), []string{"reg"}, false},
		{append(append([]string{}, before...), "fn public.mk_widgets() 0123"), []string{"widgets"}, false},
		// Exact names: a table whose name contains a created one's is
		// another table (reg, reglog), and so is a constraint on it.
		{append(append([]string{}, before...), "rel side.reglog r ", "col side.reglog.id integer notnull=true default=<nil>"), []string{"reg"}, false},
		{append(append([]string{}, before...), "col public.reg.v integer notnull=false default=<nil>"), []string{"re"}, false},
		{append(append([]string{}, before...), "con public.reg_v_check CHECK ((id > 0))", "conrel public.reg_v_check public.reg"), []string{"widgets"}, false},
		// A created table's index's column (golang-migrate's study),
		// not another table's index's.
		{append(append([]string{}, created...), "col public.widgets_pkey.id integer notnull=f default="), []string{"widgets"}, true},
		{append(append([]string{}, before...), "rel public.reg_pkey i CREATE UNIQUE INDEX reg_pkey ON public.reg USING btree (id)", "col public.reg_pkey.id integer notnull=f default="), []string{"widgets"}, false},
		// A created table's own constraint, sequence and quoted name.
		{append(append([]string{}, before...), `rel public."my table" r `, `col public."my table".id integer notnull=true default=nextval('"my table_id_seq"'::regclass)`,
			`rel public."my table_id_seq" S `, `con public."my table_pkey" PRIMARY KEY (id)`, `conrel public."my table_pkey" public."my table"`), []string{"my table"}, true},
	} {
		if got := onlyCreated(before, tc.after, tc.created); got != tc.want {
			t.Errorf("onlyCreated(%q, %q) = %v, want %v", tc.after, tc.created, got, tc.want)
		}
	}
}

// TestAnErrorEndsItsTransactionBlock: an error inside BEGIN ... ends the
// transaction there (PostgreSQL releases its locks at the abort, and a
// deadlock victim's lock goes to the other actor before the ROLLBACK): the
// failing unit ends it with what it touched, the refused statements after
// it and the ROLLBACK touch nothing, and the next BEGIN starts afresh.
// After a SAVEPOINT an error aborts only the subtransaction: the block
// goes on.
func TestAnErrorEndsItsTransactionBlock(t *testing.T) {
	c := newConn()
	c.event(&sched.UnitRecord{TxStatus: 'T', Completed: true}, []footprint.Statement{{Kind: footprint.Begin}}, false, nil)
	c.event(&sched.UnitRecord{TxStatus: 'T', Completed: true}, []footprint.Statement{dml(nil, []string{"public.a"})}, false, nil)
	fail := c.event(&sched.UnitRecord{TxStatus: 'E', Completed: true, SQLState: "40P01"}, []footprint.Statement{dml(nil, []string{"public.b"})}, false, nil)
	if !fail.EndsTx || !fail.Aborted || !slices.Equal(fail.TxWrites, []string{"public.a", "public.b"}) || fail.Global {
		t.Fatalf("the failing unit: ends %v, writes %v, global %v", fail.EndsTx, fail.TxWrites, fail.Global)
	}
	refused := c.event(&sched.UnitRecord{TxStatus: 'E', Completed: true, SQLState: "25P02"}, []footprint.Statement{dml(nil, []string{"public.c"})}, false, nil)
	rollback := c.event(&sched.UnitRecord{TxStatus: 'I', Completed: true}, []footprint.Statement{{Kind: footprint.Rollback}}, false, nil)
	if refused.Global || refused.EndsTx || len(refused.TxWrites) > 0 || rollback.Global || rollback.EndsTx {
		t.Fatalf("after the error: refused %+v, rollback %+v", refused, rollback)
	}
	c.event(&sched.UnitRecord{TxStatus: 'T', Completed: true}, []footprint.Statement{{Kind: footprint.Begin}}, false, nil)
	c.event(&sched.UnitRecord{TxStatus: 'T', Completed: true}, []footprint.Statement{{Kind: footprint.Session, Savepoint: true}}, false, nil)
	sub := c.event(&sched.UnitRecord{TxStatus: 'E', Completed: true, SQLState: "23505"}, []footprint.Statement{dml(nil, []string{"public.d"})}, false, nil)
	if !c.open {
		t.Fatalf("an error after a SAVEPOINT ended the transaction: %+v", sub)
	}
	// It released what the subtransaction took, which is not followed:
	// it carries the release terms of the transaction so far.
	if !sub.EndsTx || !sub.Aborted || !slices.Equal(sub.TxWrites, []string{"public.d"}) {
		t.Fatalf("an error after a SAVEPOINT released nothing: %+v", sub)
	}
	end := c.event(&sched.UnitRecord{TxStatus: 'I', Completed: true}, []footprint.Statement{{Kind: footprint.Rollback}}, false, nil)
	if !end.EndsTx || !end.Aborted || !slices.Equal(end.TxWrites, []string{"public.d"}) {
		t.Fatalf("the ROLLBACK after a SAVEPOINT: %+v", end)
	}
	c.event(&sched.UnitRecord{TxStatus: 'T', Completed: true}, []footprint.Statement{{Kind: footprint.Begin}}, false, nil)
	c.event(&sched.UnitRecord{TxStatus: 'T', Completed: true}, []footprint.Statement{dml(nil, []string{"public.e"})}, false, nil)
	commit := c.event(&sched.UnitRecord{TxStatus: 'I', Completed: true}, []footprint.Statement{{Kind: footprint.Commit}}, false, nil)
	if !commit.EndsTx || commit.Aborted {
		t.Fatalf("a COMMIT: %+v", commit)
	}
	// ROLLBACK AND CHAIN (not classified) in an aborted block begins
	// another transaction, whose statements count and whose end is
	// global (case aborted-then-chain).
	c.event(&sched.UnitRecord{TxStatus: 'T', Completed: true}, []footprint.Statement{{Kind: footprint.Begin}}, false, nil)
	c.event(&sched.UnitRecord{TxStatus: 'E', Completed: true, SQLState: "22012"}, []footprint.Statement{dml(nil, nil)}, false, nil)
	c.event(&sched.UnitRecord{TxStatus: 'T', Completed: true}, []footprint.Statement{{Kind: footprint.Global, Why: "ROLLBACK AND CHAIN"}}, false, nil)
	chained := c.event(&sched.UnitRecord{TxStatus: 'T', Completed: true}, []footprint.Statement{dml(nil, []string{"public.f"})}, false, nil)
	last := c.event(&sched.UnitRecord{TxStatus: 'I', Completed: true}, []footprint.Statement{{Kind: footprint.Commit}}, false, nil)
	if !slices.Equal(chained.Writes, []string{"public.f"}) || !last.EndsTx || !last.Global || last.Aborted {
		t.Fatalf("after ROLLBACK AND CHAIN: the update %+v, the COMMIT %+v", chained, last)
	}
}

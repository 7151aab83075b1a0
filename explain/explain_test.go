package explain

import (
	"reflect"
	"testing"
)

// cmd builds a command that takes effect at once (start = end = step).
func cmd(step int, actor, sql string, kind Kind, tx string, reads, writes []Access) Command {
	return Command{Step: step, Actor: actor, SQL: sql, Kind: kind, Reads: reads, Writes: writes, Start: int64(step * 10), End: int64(step*10 + 1), TxStatus: tx}
}

func row(rel, col, val string) []Access {
	return []Access{{Relation: rel, Key: map[string]string{col: val}}}
}

func rel(r string) []Access { return []Access{{Relation: r}} }

func TestKeys(t *testing.T) {
	for _, c := range []struct {
		sql    string
		params []string
		want   map[string]string
	}{
		{"SELECT balance FROM accounts WHERE id = 1", nil, map[string]string{"id": "1"}},
		{"UPDATE accounts SET balance = $1 WHERE id = $2", []string{"90", "7"}, map[string]string{"id": "7"}},
		{"update doctors set on_call = false where name = 'alice' and shift = 3", nil, map[string]string{"name": "alice", "shift": "3"}},
		{"SELECT count(*) FROM doctors WHERE on_call", nil, nil},
		{"SELECT * FROM t WHERE id = 1 OR id = 2", nil, nil},
		{"SELECT * FROM t WHERE id IN (1, 2)", nil, nil},
		{"INSERT INTO users (email, name) VALUES ('a@x', 'A')", nil, map[string]string{"email": "a@x", "name": "A"}},
		{"INSERT INTO users (email) VALUES ($1)", []string{"b@x"}, map[string]string{"email": "b@x"}},
		{"INSERT INTO users (email) VALUES ('a'), ('b')", nil, nil},
		{"DELETE FROM t WHERE t.id = -4 RETURNING id", nil, map[string]string{"id": "-4"}},
		{"SELECT * FROM t WHERE id = (SELECT max(id) FROM t)", nil, nil},
	} {
		if got := Keys(c.sql, c.params); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Keys(%q) = %v, want %v", c.sql, got, c.want)
		}
	}
}

// TestNames builds each anomaly's order by hand and checks the name, the
// Adya phenomenon and the cycle's transactions.
func TestNames(t *testing.T) {
	acct := func(v string) []Access { return row("public.accounts", "id", v) }
	cases := []struct {
		name, want, adya string
		cmds             []Command
	}{
		{"lost update", LostUpdate, "G-single", []Command{
			cmd(0, "alice", "BEGIN", KindBegin, "T", nil, nil),
			cmd(1, "bob", "BEGIN", KindBegin, "T", nil, nil),
			cmd(2, "alice", "SELECT", KindDML, "T", acct("1"), nil),
			cmd(3, "bob", "SELECT", KindDML, "T", acct("1"), nil),
			cmd(4, "alice", "UPDATE", KindDML, "T", nil, acct("1")),
			cmd(5, "alice", "COMMIT", KindCommit, "I", nil, nil),
			cmd(6, "bob", "UPDATE", KindDML, "T", nil, acct("1")),
			cmd(7, "bob", "COMMIT", KindCommit, "I", nil, nil),
		}},
		{"write skew", WriteSkew, "G2", []Command{
			cmd(0, "alice", "BEGIN", KindBegin, "T", nil, nil),
			cmd(1, "bob", "BEGIN", KindBegin, "T", nil, nil),
			cmd(2, "alice", "SELECT count", KindDML, "T", rel("public.doctors"), nil),
			cmd(3, "bob", "SELECT count", KindDML, "T", rel("public.doctors"), nil),
			cmd(4, "alice", "UPDATE", KindDML, "T", nil, row("public.doctors", "name", "alice")),
			cmd(5, "bob", "UPDATE", KindDML, "T", nil, row("public.doctors", "name", "bob")),
			cmd(6, "alice", "COMMIT", KindCommit, "I", nil, nil),
			cmd(7, "bob", "COMMIT", KindCommit, "I", nil, nil),
		}},
		{"read skew", ReadSkew, "G-single", []Command{
			cmd(0, "reader", "BEGIN", KindBegin, "T", nil, nil),
			cmd(1, "reader", "SELECT a", KindDML, "T", acct("1"), nil),
			cmd(2, "mover", "BEGIN", KindBegin, "T", nil, nil),
			cmd(3, "mover", "UPDATE a", KindDML, "T", nil, acct("1")),
			cmd(4, "mover", "UPDATE b", KindDML, "T", nil, acct("2")),
			cmd(5, "mover", "COMMIT", KindCommit, "I", nil, nil),
			cmd(6, "reader", "SELECT b", KindDML, "T", acct("2"), nil),
			cmd(7, "reader", "COMMIT", KindCommit, "I", nil, nil),
		}},
		{"phantom", Phantom, "G-single", []Command{
			cmd(0, "reader", "BEGIN", KindBegin, "T", nil, nil),
			cmd(1, "reader", "SELECT count", KindDML, "T", rel("public.orders"), nil),
			cmd(2, "writer", "INSERT", KindDML, "I", nil, []Access{{Relation: "public.orders", Key: map[string]string{"id": "9"}, Insert: true}}),
			cmd(3, "reader", "SELECT sum", KindDML, "T", rel("public.orders"), nil),
			cmd(4, "reader", "COMMIT", KindCommit, "I", nil, nil),
		}},
		{"read-only anomaly", ReadOnlyAnomaly, "G2-item", []Command{
			cmd(0, "withdraw", "BEGIN", KindBegin, "T", nil, nil),
			cmd(1, "withdraw", "SELECT checking", KindDML, "T", acct("1"), nil),
			cmd(2, "withdraw", "SELECT savings", KindDML, "T", acct("2"), nil),
			cmd(3, "deposit", "UPDATE savings", KindDML, "I", nil, acct("2")),
			cmd(4, "report", "BEGIN", KindBegin, "T", nil, nil),
			cmd(5, "report", "SELECT checking", KindDML, "T", acct("1"), nil),
			cmd(6, "report", "SELECT savings", KindDML, "T", acct("2"), nil),
			cmd(7, "report", "COMMIT", KindCommit, "I", nil, nil),
			cmd(8, "withdraw", "UPDATE checking", KindDML, "T", nil, acct("1")),
			cmd(9, "withdraw", "COMMIT", KindCommit, "I", nil, nil),
		}},
		{"check then insert, autocommit", "", "", []Command{
			cmd(0, "alice", "SELECT", KindDML, "I", row("public.users", "email", "a"), nil),
			cmd(1, "bob", "SELECT", KindDML, "I", row("public.users", "email", "a"), nil),
			cmd(2, "alice", "INSERT", KindDML, "I", nil, []Access{{Relation: "public.users", Key: map[string]string{"email": "a"}, Insert: true}}),
			cmd(3, "bob", "INSERT", KindDML, "I", nil, []Access{{Relation: "public.users", Key: map[string]string{"email": "a"}, Insert: true}}),
		}},
	}
	for _, c := range cases {
		x := Analyze("s", "broken", c.cmds, "")
		if x.Anomaly.Name != c.want || x.Anomaly.Adya != c.adya {
			t.Errorf("%s: named %q (%s), want %q (%s); cycle %v; edges %v", c.name, x.Anomaly.Name, x.Anomaly.Adya, c.want, c.adya, x.Cycle, x.Edges)
		}
		if c.want == "" && (len(x.Cycle) != 0 || x.Anomaly.Sentence[:len(NoCycle)] != NoCycle) {
			t.Errorf("%s: a cycle %v; sentence %q", c.name, x.Cycle, x.Anomaly.Sentence)
		}
		if c.want != "" && len(x.Cycle) < 2 {
			t.Errorf("%s: cycle %v", c.name, x.Cycle)
		}
	}
}

// TestVerdict: the fix class follows the level runs.
func TestVerdict(t *testing.T) {
	e := []LevelError{{Actor: "bob", Step: 6, SQLState: "40001"}}
	for _, c := range []struct {
		rr, ser LevelRun
		want    string
	}{
		{LevelRun{Level: "repeatable read", Held: true, Errors: e}, LevelRun{Level: "serializable", Held: true, Errors: e}, FixRepeatableRead},
		{LevelRun{Level: "repeatable read"}, LevelRun{Level: "serializable", Held: true, Errors: e}, FixSerializable},
		{LevelRun{Level: "repeatable read", Outcome: "violation"}, LevelRun{Level: "serializable", Outcome: "violation"}, FixLocking},
		{LevelRun{Level: "repeatable read", Outcome: "violation"}, LevelRun{Level: "serializable", Outcome: "actor-error", Errors: e}, FixUnknown},
	} {
		if got := Verdict([]LevelRun{c.rr, c.ser}, nil); got.Class != c.want {
			t.Errorf("%+v %+v: %s, want %s", c.rr, c.ser, got.Class, c.want)
		}
	}
	if got := Verdict([]LevelRun{{Level: "repeatable read"}, {Level: "serializable", Held: true, Errors: e}}, nil).Advice; got != "SERIALIZABLE prevents this if the code retries on 40001 (bob got 40001 at step 6)" {
		t.Errorf("advice %q", got)
	}
}

func TestTarget(t *testing.T) {
	for sql, want := range map[string]string{
		"UPDATE accounts SET balance = 1":       "accounts",
		"update ONLY public.Accounts set x = 1": "accounts",
		`INSERT INTO "Orders" (id) VALUES (1)`:  "Orders",
		"DELETE FROM t WHERE id = 1":            "t",
		"SELECT 1":                              "",
		"WITH x AS (DELETE FROM t) SELECT 1":    "",
	} {
		if got := Target(sql); got != want {
			t.Errorf("Target(%q) = %q, want %q", sql, got, want)
		}
	}
}

// TestNoOverwriteByInsertOrIndirectWrite: two inserts of one key, or a
// write through a foreign key's action, make no ww edge.
func TestNoOverwriteByInsertOrIndirectWrite(t *testing.T) {
	ins := []Access{{Relation: "public.orders", Key: map[string]string{"product": "1"}, Insert: true}}
	ind := []Access{{Relation: "public.orders", Indirect: true, Locked: true}}
	cmds := []Command{
		cmd(0, "a", "INSERT", KindDML, "I", nil, ins),
		cmd(1, "b", "INSERT", KindDML, "I", nil, ins),
		cmd(2, "c", "UPDATE products", KindDML, "I", nil, ind),
	}
	for _, e := range Dependencies(Transactions(cmds, "")) {
		if e.Kind == WW {
			t.Errorf("a ww edge %+v", e)
		}
	}
}

// TestRepeatableReadSnapshotAtPreparation: a REPEATABLE READ transaction
// whose first statement was prepared at step 1 read the database as it was
// then: a commit at step 2 is not seen by its read at step 3 (rw), and the
// edge names the step of the snapshot.
func TestRepeatableReadSnapshotAtPreparation(t *testing.T) {
	read := cmd(3, "r", "SELECT", KindDML, "T", row("public.t", "id", "1"), nil)
	read.Prepared, read.PreparedStep = 10, 1
	cmds := []Command{
		{Step: 0, Actor: "r", SQL: "BEGIN ISOLATION LEVEL REPEATABLE READ", Kind: KindBegin, Isolation: "repeatable read", Start: 0, End: 1, TxStatus: "T"},
		cmd(2, "w", "UPDATE", KindDML, "I", nil, row("public.t", "id", "1")),
		read,
		cmd(4, "r", "COMMIT", KindCommit, "I", nil, nil),
	}
	edges := Dependencies(Transactions(cmds, ""))
	if len(edges) != 1 || edges[0].Kind != RW || edges[0].SnapshotStep != 1 {
		t.Fatalf("edges %+v; want one rw from the snapshot at step 1", edges)
	}
	// At READ COMMITTED the same read sees the commit: wr.
	cmds[0].Isolation = ""
	edges = Dependencies(Transactions(cmds, ""))
	if len(edges) != 1 || edges[0].Kind != WR {
		t.Fatalf("edges %+v; want one wr at READ COMMITTED", edges)
	}
}

package capture

import (
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

func encode(t *testing.T, msgs ...pgproto3.FrontendMessage) []byte {
	var b []byte
	for _, m := range msgs {
		var err error
		if b, err = m.Encode(b); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// lib/pq's default path parses the unnamed statement in one unit and binds
// and executes it in the next; pgx names its cached statements. Both must
// carry the SQL into the record; a simple Query ends the unnamed statement.
func TestStatementTextsFollowTheConnection(t *testing.T) {
	conns := map[int]*Statements{0: NewStatements(), 1: NewStatements()}
	units := []struct {
		conn  int
		bytes []byte
	}{
		{0, encode(t, &pgproto3.Parse{Query: "SELECT $1"}, &pgproto3.Describe{ObjectType: 'S'}, &pgproto3.Sync{})},
		{0, encode(t, &pgproto3.Bind{Parameters: [][]byte{[]byte("alice")}}, &pgproto3.Execute{}, &pgproto3.Sync{})},
		{0, encode(t, &pgproto3.Parse{Name: "s1", Query: "UPDATE t SET a = $1"}, &pgproto3.Sync{})},
		{0, encode(t, &pgproto3.Bind{PreparedStatement: "s1", Parameters: [][]byte{nil}}, &pgproto3.Execute{}, &pgproto3.Sync{})},
		{0, encode(t, &pgproto3.Query{String: "COMMIT"})},
		{0, encode(t, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})},
		{1, encode(t, &pgproto3.Bind{PreparedStatement: "s1"}, &pgproto3.Execute{}, &pgproto3.Sync{})},
	}
	want := []string{"SELECT $1", "SELECT $1", "UPDATE t SET a = $1", "UPDATE t SET a = $1", "COMMIT", "", ""}
	wantParams := map[int]string{1: "alice", 3: "NULL"}
	for i, u := range units {
		d := conns[u.conn].Unit(u.bytes)
		sqls, params := d.SQL, d.Params
		got := ""
		if len(sqls) > 0 {
			got = sqls[0]
		}
		if got != want[i] {
			t.Errorf("unit %d: SQL %q, want %q", i, got, want[i])
		}
		if p, ok := wantParams[i]; ok && (len(params) != 1 || len(params[0]) != 1 || params[0][0].Brief() != p) {
			t.Errorf("unit %d: params %v, want [[%s]]", i, params, p)
		}
	}
}

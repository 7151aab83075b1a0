package capture

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/pginterleave/interleave/internal/testkit/golden"
	"github.com/pginterleave/interleave/netproxy"
)

// enc encodes protocol messages back to back.
func enc(t testing.TB, msgs ...interface {
	Encode([]byte) ([]byte, error)
}) []byte {
	t.Helper()
	var out []byte
	for _, m := range msgs {
		var err error
		if out, err = m.Encode(out); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// synthCapture records, through the arena and recorders the proxy uses, two
// actors' traffic covering every path of the decoder: SSL negotiation, a
// SCRAM exchange (redacted), simple and extended units, an error, a unit
// that binds a statement prepared earlier, COPY, a cancel connection, server
// answers split across chunks at awkward places and a Terminate sent while
// an answer is still arriving.
func synthCapture(t testing.TB) (raw []byte, units []UnitInfo, conns []ConnInfo) {
	t.Helper()
	a := NewArena()
	alice, bob := a.Recorder(0), a.Recorder(1)
	c2s, s2c := netproxy.ClientToServer, netproxy.ServerToClient
	unit := func(r netproxy.Recorder, actor string, n, step int, sql []string, b []byte) {
		r.Bytes(0, c2s, b)
		units = append(units, UnitInfo{Actor: actor, Conn: 0, Unit: n, Hash: HashBytes(b), ReleaseStep: step, SQL: sql})
	}

	alice.Bytes(0, c2s, enc(t, &pgproto3.SSLRequest{}))
	alice.Bytes(0, s2c, []byte{'N'})
	// Written out: pgproto3 encodes a StartupMessage's parameters in map
	// order, which would make the golden files below differ run to run.
	startup := []byte("\x00\x00\x00\x00\x00\x03\x00\x00user\x00alice\x00database\x00shop\x00\x00")
	binary.BigEndian.PutUint32(startup, uint32(len(startup)))
	alice.Bytes(0, c2s, startup)
	alice.Bytes(0, s2c, enc(t, &pgproto3.AuthenticationSASL{AuthMechanisms: []string{"SCRAM-SHA-256"}}))
	alice.Redacted(0, c2s, []byte{'p', 0, 0, 0, 39}, 40, "authentication response")
	alice.Redacted(0, s2c, []byte{'R', 0, 0, 0, 49, 0, 0, 0, 11}, 50, "SASL exchange")
	alice.Redacted(0, c2s, []byte{'p', 0, 0, 0, 59}, 60, "authentication response")
	alice.Redacted(0, s2c, []byte{'R', 0, 0, 0, 29, 0, 0, 0, 12}, 30, "SASL exchange")
	for _, m := range []interface {
		Encode([]byte) ([]byte, error)
	}{
		&pgproto3.AuthenticationOk{},
		&pgproto3.ParameterStatus{Name: "server_version", Value: "17.2"},
		&pgproto3.BackendKeyData{ProcessID: 4242, SecretKey: []byte{1, 2, 3, 4}},
		&pgproto3.ReadyForQuery{TxStatus: 'I'},
	} {
		alice.Bytes(0, s2c, enc(t, m))
	}

	// Unit 0: a simple query, its answer in three chunks cut mid-message.
	unit(alice, "alice", 0, 0, []string{"SELECT id, name FROM t"}, enc(t, &pgproto3.Query{String: "SELECT id, name\n  FROM t"}))
	answer := enc(t,
		&pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{{Name: []byte("id"), DataTypeOID: 23, DataTypeSize: 4}, {Name: []byte("name"), DataTypeOID: 25, DataTypeSize: -1}}},
		&pgproto3.NoticeResponse{Severity: "NOTICE", Code: "00000", Message: "just so you know"},
		&pgproto3.DataRow{Values: [][]byte{[]byte("1"), []byte("a")}},
		&pgproto3.DataRow{Values: [][]byte{[]byte("2"), nil}},
		&pgproto3.CommandComplete{CommandTag: []byte("SELECT 2")},
		&pgproto3.ReadyForQuery{TxStatus: 'I'},
	)
	alice.Bytes(0, s2c, answer[:3])
	alice.Bytes(0, s2c, answer[3:70])
	alice.Bytes(0, s2c, answer[70:])

	// Unit 1: extended protocol with a text, a binary parameter.
	upd := "UPDATE t SET name = $1 WHERE id = $2"
	unit(alice, "alice", 1, 1, []string{upd}, enc(t,
		&pgproto3.Parse{Name: "s1", Query: upd, ParameterOIDs: []uint32{25, 23}},
		&pgproto3.Bind{PreparedStatement: "s1", ParameterFormatCodes: []int16{0, 1}, Parameters: [][]byte{[]byte("bob"), {0, 0, 0, 5}}},
		&pgproto3.Describe{ObjectType: 'P'},
		&pgproto3.Execute{},
		&pgproto3.Sync{}))
	alice.Bytes(0, s2c, enc(t, &pgproto3.ParseComplete{}, &pgproto3.BindComplete{}, &pgproto3.NoData{},
		&pgproto3.CommandComplete{CommandTag: []byte("UPDATE 1")}, &pgproto3.ReadyForQuery{TxStatus: 'I'}))

	// Unit 2: an error.
	unit(alice, "alice", 2, 2, []string{"SELECT 1/0"}, enc(t, &pgproto3.Query{String: "SELECT 1/0"}))
	alice.Bytes(0, s2c, enc(t, &pgproto3.ErrorResponse{Severity: "ERROR", Code: "22012", Message: "division by zero"},
		&pgproto3.ReadyForQuery{TxStatus: 'I'}))

	// Unit 3: binds the statement unit 1 prepared; a NULL parameter.
	unit(alice, "alice", 3, 4, []string{upd}, enc(t,
		&pgproto3.Bind{PreparedStatement: "s1", ParameterFormatCodes: []int16{0, 1}, Parameters: [][]byte{nil, {0, 0, 0, 7}}},
		&pgproto3.Execute{}, &pgproto3.Sync{}))
	alice.Bytes(0, s2c, enc(t, &pgproto3.BindComplete{}, &pgproto3.CommandComplete{CommandTag: []byte("UPDATE 0")}, &pgproto3.ReadyForQuery{TxStatus: 'I'}))

	// Unit 4: COPY FROM STDIN; the data are separate writes.
	unit(alice, "alice", 4, 5, []string{"COPY t FROM STDIN"}, enc(t, &pgproto3.Query{String: "COPY t FROM STDIN"}))
	alice.Bytes(0, s2c, enc(t, &pgproto3.CopyInResponse{ColumnFormatCodes: []uint16{0, 0}}))
	alice.Bytes(0, c2s, enc(t, &pgproto3.CopyData{Data: []byte("3\tc\n")}))
	alice.Bytes(0, c2s, enc(t, &pgproto3.CopyData{Data: []byte("4\td\n")}))
	alice.Bytes(0, c2s, enc(t, &pgproto3.CopyDone{}))
	alice.Bytes(0, s2c, enc(t, &pgproto3.CommandComplete{CommandTag: []byte("COPY 2")}, &pgproto3.ReadyForQuery{TxStatus: 'I'}))
	alice.Bytes(0, c2s, enc(t, &pgproto3.Terminate{}))
	alice.Closed(0, nil)
	units = append(units, UnitInfo{Actor: "alice", Conn: 0, Unit: 5, Hash: "0123456789abcdef", ReleaseStep: -1, SQL: []string{"SELECT 'never'"}})

	// bob: a long statement, cancelled from a second connection; bob sends
	// Terminate while the error is still arriving.
	bob.Bytes(0, c2s, enc(t, &pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "bob"}}))
	bob.Bytes(0, s2c, enc(t, &pgproto3.AuthenticationOk{}))
	bob.Bytes(0, s2c, enc(t, &pgproto3.BackendKeyData{ProcessID: 77, SecretKey: []byte{9, 9, 9, 9}}))
	bob.Bytes(0, s2c, enc(t, &pgproto3.ReadyForQuery{TxStatus: 'I'}))
	unit(bob, "bob", 0, 3, []string{"SELECT pg_sleep(10)"}, enc(t, &pgproto3.Query{String: "SELECT pg_sleep(10)"}))
	bob.Bytes(1, c2s, enc(t, &pgproto3.CancelRequest{ProcessID: 77, SecretKey: []byte{9, 9, 9, 9}}))
	bob.Closed(1, nil)
	cancelled := enc(t, &pgproto3.ErrorResponse{Severity: "ERROR", Code: "57014", Message: "canceling statement due to user request"},
		&pgproto3.ReadyForQuery{TxStatus: 'I'})
	bob.Bytes(0, s2c, cancelled[:10])
	bob.Bytes(0, c2s, enc(t, &pgproto3.Terminate{}))
	bob.Bytes(0, s2c, cancelled[10:])
	bob.Closed(0, errors.New("boom"))
	units = append(units, UnitInfo{Actor: "bob", Conn: 0, Unit: 1, Hash: "fedcba9876543210", ReleaseStep: 6})

	conns = []ConnInfo{{Actor: "alice", ActorIndex: 0, Conn: 0, Stream: 0}, {Actor: "bob", ActorIndex: 1, Conn: 0, Stream: 0}}
	return append([]byte(nil), a.Bytes()...), units, conns
}

// TestSynthCaptureGolden keeps the synthesized capture that package
// pcapng's tests read (testdata there) equal to synthCapture's.
func TestSynthCaptureGolden(t *testing.T) {
	raw, _, _ := synthCapture(t)
	path := filepath.Join("pcapng", "testdata", "synth.capture")
	if golden.Updating() {
		if err := os.WriteFile(path, raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The records must match; their timestamps are the clock's.
	untimed := func(b []byte) []Record {
		recs, err := Decode(b)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for i := range recs {
			recs[i].At = 0
		}
		return recs
	}
	if !reflect.DeepEqual(untimed(got), untimed(raw)) {
		t.Fatalf("%s is not the synthesized capture; run go test ./capture -run SynthCaptureGolden -update", path)
	}
}

// TestTraceTextGolden pins what interleave trace prints for the committed
// synthesized capture (its timestamps are fixed there): every message
// kind, redaction, parameter rendering and timing column.
func TestTraceTextGolden(t *testing.T) {
	_, units, conns := synthCapture(t)
	raw, err := os.ReadFile(filepath.Join("pcapng", "testdata", "synth.capture"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Trace(raw, units, conns)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := res.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "synth-trace.golden"), b.Bytes())
}

func TestHashBytesMatchesTheScheduler(t *testing.T) {
	// FNV-1a 64's offset basis, and a known vector, as 16 hex digits.
	if h := HashBytes(nil); h != "cbf29ce484222325" {
		t.Fatalf("HashBytes(nil) = %s", h)
	}
	if h := HashBytes([]byte("a")); h != "af63dc4c8601ec8c" {
		t.Fatalf(`HashBytes("a") = %s`, h)
	}
}

func TestTraceDecodesEveryPath(t *testing.T) {
	raw, units, conns := synthCapture(t)
	res, err := Trace(raw, units, conns)
	if err != nil {
		t.Fatal(err)
	}
	checkAccounting(t, raw, res)
	if len(res.Streams) != 3 {
		t.Fatalf("%d streams, want 3 (alice's session, bob's session, bob's cancel)", len(res.Streams))
	}
	al, bs, bc := res.Streams[0], res.Streams[1], res.Streams[2]
	if al.Actor != "alice" || al.Conn != 0 || al.Kind != "session" || al.PCAPPort != 40000 ||
		bs.Actor != "bob" || bs.Kind != "session" || bs.PCAPPort != 40001 ||
		bc.Actor != "bob" || bc.Stream != 1 || bc.Conn != -1 || bc.Kind != "cancel" || bc.PCAPPort != 40002 {
		t.Fatalf("streams: %+v\n%+v\n%+v", al, bs, bc)
	}

	// Start-up: SSL, parameters, redacted SCRAM messages, key data.
	want := []string{"SSLRequest", "SSLResponse", "StartupMessage", "AuthenticationSASL", "SASLInitialResponse",
		"AuthenticationSASLContinue", "SASLResponse", "AuthenticationSASLFinal", "AuthenticationOk", "ParameterStatus",
		"BackendKeyData", "ReadyForQuery"}
	if got := types(al.Startup); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("start-up:\n got %v\nwant %v", got, want)
	}
	su := al.Startup
	if su[2].Detail != "protocol 3.0 database=shop user=alice" || su[2].From != fromClient {
		t.Errorf("StartupMessage: %+v", su[2])
	}
	if !su[4].Redacted || su[4].Detail != "[redacted: 40 bytes] authentication response" || su[4].Length != 40 {
		t.Errorf("SASLInitialResponse: %+v", su[4])
	}
	if !su[5].Redacted || su[5].Detail != "[redacted: 50 bytes] SASL exchange" || su[5].From != fromServer {
		t.Errorf("SASLContinue: %+v", su[5])
	}
	if su[10].Detail != "backend pid 4242" {
		t.Errorf("BackendKeyData: %+v", su[10])
	}

	ex := al.Exchanges
	if len(ex) != 6 {
		t.Fatalf("%d exchanges for alice, want 5 units and Terminate", len(ex))
	}
	for i := 0; i < 5; i++ {
		if ex[i].Unit == nil || ex[i].Unit.Unit != i {
			t.Fatalf("exchange %d: unit %+v", i, ex[i].Unit)
		}
		if ex[i].FirstServerUS == nil || *ex[i].FirstServerUS < ex[i].ClientUS || *ex[i].LastServerUS < *ex[i].FirstServerUS {
			t.Errorf("exchange %d timing: client %d, server %v..%v", i, ex[i].ClientUS, ex[i].FirstServerUS, ex[i].LastServerUS)
		}
	}
	// Unit 0: a split answer reassembled; the DataRows counted.
	if q := ex[0].Client; len(q) != 1 || q[0].Type != "Query" || q[0].SQL != "SELECT id, name\n  FROM t" {
		t.Errorf("unit 0 client: %+v", q)
	}
	if got := strings.Join(types(ex[0].Server), " "); got != "RowDescription NoticeResponse DataRow CommandComplete ReadyForQuery" {
		t.Errorf("unit 0 server: %s", got)
	}
	s0 := ex[0].Server
	if len(s0[0].Columns) != 2 || s0[0].Columns[0] != (Column{Name: "id", TypeOID: 23}) || s0[0].Columns[1].Name != "name" {
		t.Errorf("RowDescription: %+v", s0[0])
	}
	if s0[1].Severity != "NOTICE" || s0[1].Text != "just so you know" {
		t.Errorf("NoticeResponse: %+v", s0[1])
	}
	if s0[2].Count != 2 || s0[3].Tag != "SELECT 2" || s0[4].Status != "I" {
		t.Errorf("rows, tag, status: %+v %+v %+v", s0[2], s0[3], s0[4])
	}
	// Unit 1: extended protocol.
	c1 := ex[1].Client
	if got := strings.Join(types(c1), " "); got != "Parse Bind Describe Execute Sync" {
		t.Fatalf("unit 1 client: %s", got)
	}
	if *c1[0].Statement != "s1" || !strings.HasPrefix(c1[0].SQL, "UPDATE t SET") || c1[0].Detail != "parameter types text, int4" {
		t.Errorf("Parse: %+v", c1[0])
	}
	if *c1[1].Statement != "s1" || *c1[1].Portal != "" || paramList(c1[1].Params) != `"bob", \x00000005 (binary; as int4 5)` {
		t.Errorf("Bind: %+v (params %q)", c1[1], c1[1].Params)
	}
	if c1[2].Target != "portal" || *c1[2].Portal != "" {
		t.Errorf("Describe: %+v", c1[2])
	}
	if got := strings.Join(types(ex[1].Server), " "); got != "ParseComplete BindComplete NoData CommandComplete ReadyForQuery" {
		t.Errorf("unit 1 server: %s", got)
	}
	// Unit 2: the error.
	if e := ex[2].Server[0]; e.Type != "ErrorResponse" || e.Severity != "ERROR" || e.SQLState != "22012" || e.Text != "division by zero" {
		t.Errorf("ErrorResponse: %+v", e)
	}
	// Unit 3: NULL rendered.
	if p := ex[3].Client[0].Params; len(p) != 2 || !p[0].Null || p[0].String() != "NULL" {
		t.Errorf("unit 3 params %q", p)
	}
	// Unit 4: COPY data filed under the unit that started the COPY.
	if got := strings.Join(types(ex[4].Client), " "); got != "Query CopyData CopyDone" {
		t.Errorf("unit 4 client: %s", got)
	}
	if ex[4].Client[1].Count != 2 {
		t.Errorf("CopyData run: %+v", ex[4].Client[1])
	}
	if got := strings.Join(types(ex[4].Server), " "); got != "CopyInResponse CommandComplete ReadyForQuery" {
		t.Errorf("unit 4 server: %s", got)
	}
	if ex[5].Unit != nil || len(ex[5].Client) != 1 || ex[5].Client[0].Type != "Terminate" || ex[5].FirstServerUS != nil {
		t.Errorf("Terminate: %+v", ex[5])
	}
	if al.Closed == nil || al.Closed.Reason != "" {
		t.Errorf("alice closed: %+v", al.Closed)
	}

	// bob: the error cut by the Terminate write still frames and belongs to
	// the cancelled unit.
	if len(bs.Exchanges) != 2 || bs.Exchanges[0].Unit == nil {
		t.Fatalf("bob's exchanges: %+v", bs.Exchanges)
	}
	if got := strings.Join(types(bs.Exchanges[0].Server), " "); got != "ErrorResponse ReadyForQuery" {
		t.Errorf("bob's cancelled unit: %s", got)
	}
	if e := bs.Exchanges[0].Server[0]; e.SQLState != "57014" || e.LastUS != 0 && e.LastUS < e.AtUS {
		t.Errorf("bob's error: %+v", e)
	}
	if bs.Closed == nil || bs.Closed.Reason != "boom" {
		t.Errorf("bob closed: %+v", bs.Closed)
	}
	if len(bc.Startup) != 1 || bc.Startup[0].Type != "CancelRequest" || bc.Startup[0].Detail != "backend pid 77" {
		t.Errorf("cancel stream: %+v", bc.Startup)
	}

	// The unreleased unit and the one with no matching write are reported.
	if len(res.Missing) != 2 || res.Missing[0].Unit != 5 || res.Missing[0].Reason != "never released" ||
		res.Missing[1].Actor != "bob" || !strings.Contains(res.Missing[1].Reason, "no client write") {
		t.Errorf("missing: %+v", res.Missing)
	}

	// Text: one line per message, columns aligned.
	var b bytes.Buffer
	if err := res.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, s := range []string{
		"alice conn #0 (stream 0): session; tcp port 40000 in the pcapng",
		"bob stream 1: cancel; tcp port 40002",
		"SASLInitialResponse",
		"[redacted: 40 bytes] authentication response",
		"sql: SELECT id, name FROM t",
		`statement "s1"  parameter types text, int4  sql: UPDATE t SET name = $1 WHERE id = $2`,
		`portal "" statement "s1"  params ["bob", \x00000005 (binary; as int4 5)]`,
		"ERROR 22012 division by zero",
		"2 rows, ",
		"CommandComplete",
		"I (idle)",
		"runs: UPDATE t SET name = $1 WHERE id = $2",
		"client write outside any release unit",
		"closed at ",
		"alice#0.5  hash 0123456789abcdef: never released",
	} {
		if !strings.Contains(text, s) {
			t.Errorf("the text lacks %q:\n%s", s, text)
		}
	}
	col := -1
	for _, l := range strings.Split(text, "\n") {
		i := strings.Index(l, "µs →")
		if i < 0 {
			i = strings.Index(l, "µs ←")
		}
		if i < 0 {
			continue
		}
		if col < 0 {
			col = i
		}
		if i != col {
			t.Errorf("misaligned line (arrow at %d, not %d): %q", i, col, l)
		}
	}
	if col < 0 {
		t.Fatal("no message lines")
	}
	// JSON round trip.
	j, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var back TraceResult
	if err := json.Unmarshal(j, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Streams) != 3 || back.Streams[0].Exchanges[1].Client[0].SQL != upd(t) {
		t.Errorf("JSON round trip lost data: %s", j)
	}
	if !bytes.Contains(j, []byte(`"sqlstate":"22012"`)) || !bytes.Contains(j, []byte(`"pcapPort":40000`)) {
		t.Errorf("JSON: %s", j)
	}
}

func upd(testing.TB) string { return "UPDATE t SET name = $1 WHERE id = $2" }

func TestTraceUndecodableBytes(t *testing.T) {
	a := NewArena()
	r := a.Recorder(0)
	c2s, s2c := netproxy.ClientToServer, netproxy.ServerToClient
	r.Bytes(0, c2s, enc(t, &pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "u"}}))
	r.Bytes(0, s2c, enc(t, &pgproto3.ReadyForQuery{TxStatus: 'I'}))
	q := enc(t, &pgproto3.Query{String: "SELECT 1"})
	r.Bytes(0, c2s, append(q, 'Q', 0, 0))              // a message cut short after a good one
	r.Bytes(0, s2c, []byte{'?', 0, 0, 0, 5, 1})        // an unknown type
	r.Bytes(0, s2c, []byte{'C', 0, 0, 0, 2})           // a length field below 4
	r.Bytes(0, s2c, []byte("more bytes after it"))     // cannot frame any more
	r.Bytes(1, c2s, []byte{0, 0, 0, 9, 1, 2, 3, 4, 5}) // no known start-up code
	r.Bytes(1, s2c, enc(t, &pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")})[:7])
	raw := a.Bytes()
	res, err := Trace(raw, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkAccounting(t, raw, res)
	var b bytes.Buffer
	if err := res.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, want := range [][]string{
		{"[undecodable 3 bytes]", "a message header cut short"},
		{"[undecodable 6 bytes]", "unknown server message type '?'"},
		{"[undecodable 5 bytes]", "message 'C' with length field 2"},
		{"[undecodable 19 bytes]", "after a message that does not frame"},
		{"[undecodable 9 bytes]", "a start-up packet with the unknown code 16909060"},
		{"[undecodable 7 bytes]", "a message cut short"},
		{"actor#0 stream 1: unattached"},
	} {
		if !hasLine(text, want...) {
			t.Errorf("no line of the text has %q:\n%s", want, text)
		}
	}
	if _, err := Trace([]byte{1, 2, 3}, nil, nil); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a capture cut in a record header: %v", err)
	}
}

// hasLine reports whether a line of text contains parts in order.
func hasLine(text string, parts ...string) bool {
	for _, l := range strings.Split(text, "\n") {
		ok := true
		for _, p := range parts {
			i := strings.Index(l, p)
			if i < 0 {
				ok = false
				break
			}
			l = l[i+len(p):]
		}
		if ok {
			return true
		}
	}
	return false
}

func types(ms []Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Type
	}
	return out
}

// checkAccounting asserts that every byte of every stream and direction is in
// exactly one message of the trace (redacted messages count their recorded
// length).
func checkAccounting(t testing.TB, raw []byte, res *TraceResult) {
	t.Helper()
	recs, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		actor, stream int
		from          string
	}
	want := map[key]int{}
	for _, r := range recs {
		from := fromClient
		if r.Dir == netproxy.ServerToClient {
			from = fromServer
		}
		switch r.Kind {
		case KindBytes:
			want[key{r.Actor, r.Stream, from}] += len(r.Data)
		case KindRedacted:
			want[key{r.Actor, r.Stream, from}] += r.Length
		}
	}
	got := map[key]int{}
	for _, s := range res.Streams {
		add := func(ms []Message) {
			for _, m := range ms {
				if m.Length < 0 {
					t.Fatalf("negative length: %+v", m)
				}
				got[key{s.ActorIndex, s.Stream, m.From}] += m.Length
			}
		}
		add(s.Startup)
		for _, e := range s.Exchanges {
			add(e.Client)
			add(e.Server)
		}
	}
	for k, n := range want {
		if got[k] != n {
			t.Fatalf("%+v: %d bytes in the capture, %d in the trace", k, n, got[k])
		}
	}
	for k, n := range got {
		if want[k] != n {
			t.Fatalf("%+v: %d bytes in the trace, %d in the capture", k, n, want[k])
		}
	}
}

// FuzzTrace feeds hostile captures to Trace (pcapng.FuzzWrite does the same for pcapng). The seed corpus
// holds a real capture (testdata/fuzz/FuzzTrace, written from a real
// attempt by TestTsharkReadsTheCapture with -update-seeds) and the
// synthesized one. Units and connections are derived from the capture
// itself, so that matching by hash is exercised too.
func FuzzTrace(f *testing.F) {
	raw, _, _ := synthCapture(f)
	f.Add(raw)
	f.Add(raw[:len(raw)-3])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, raw []byte) {
		units, conns := deriveInputs(raw)
		res, err := Trace(raw, units, conns)
		if _, derr := Decode(raw); (derr == nil) != (err == nil) && !strings.Contains(fmt.Sprint(err), "streams") && !errors.Is(err, ErrOverLimit) {
			t.Fatalf("Decode: %v; Trace: %v", derr, err)
		}
		if err == nil {
			checkAccounting(t, raw, res)
			if err := res.WriteText(io.Discard); err != nil {
				t.Fatal(err)
			}
			if _, err := json.Marshal(res); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// deriveInputs makes every client write after a stream's first a unit of
// the stream's connection, named after the actor number.
func deriveInputs(raw []byte) ([]UnitInfo, []ConnInfo) {
	recs, err := Decode(raw)
	if err != nil {
		return nil, nil
	}
	var units []UnitInfo
	var conns []ConnInfo
	seen := map[streamKey]int{}
	for _, r := range recs {
		k := streamKey{r.Actor, r.Stream}
		n, ok := seen[k]
		if !ok {
			conns = append(conns, ConnInfo{Actor: fmt.Sprintf("a%d", r.Actor), ActorIndex: r.Actor, Conn: r.Stream, Stream: r.Stream})
		}
		if r.Kind == KindBytes && r.Dir == netproxy.ClientToServer {
			if n > 0 {
				units = append(units, UnitInfo{Actor: fmt.Sprintf("a%d", r.Actor), Conn: r.Stream, Unit: n - 1, Hash: HashBytes(r.Data), ReleaseStep: len(units)})
			}
			n++
		}
		seen[k] = n
	}
	return units, conns
}

// A start-up packet's length field must match its write.
func TestStartupPacketLength(t *testing.T) {
	a := NewArena()
	p := enc(t, &pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "u"}})
	binary.BigEndian.PutUint32(p, uint32(len(p)+1))
	a.Recorder(0).Bytes(0, netproxy.ClientToServer, p)
	res, err := Trace(a.Bytes(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m := res.Streams[0].Startup[0]; !m.Undecodable || !strings.Contains(m.Detail, "says it has") {
		t.Fatalf("%+v", m)
	}
}

// Units with the same bytes (BEGIN, COMMIT) match their writes in ordinal
// order.
func TestTraceMatchesRepeatedUnitsInOrder(t *testing.T) {
	a := NewArena()
	r := a.Recorder(0)
	c2s, s2c := netproxy.ClientToServer, netproxy.ServerToClient
	r.Bytes(0, c2s, enc(t, &pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "u"}}))
	r.Bytes(0, s2c, enc(t, &pgproto3.ReadyForQuery{TxStatus: 'I'}))
	var units []UnitInfo
	for i, q := range []string{"BEGIN", "COMMIT", "BEGIN", "COMMIT"} {
		b := enc(t, &pgproto3.Query{String: q})
		r.Bytes(0, c2s, b)
		r.Bytes(0, s2c, enc(t, &pgproto3.CommandComplete{CommandTag: []byte(q)}, &pgproto3.ReadyForQuery{TxStatus: 'I'}))
		units = append(units, UnitInfo{Actor: "u", Conn: 0, Unit: i, Hash: strings.ToUpper(HashBytes(b)), ReleaseStep: i})
	}
	res, err := Trace(a.Bytes(), units, []ConnInfo{{Actor: "u", ActorIndex: 0, Conn: 0, Stream: 0}})
	if err != nil {
		t.Fatal(err)
	}
	ex := res.Streams[0].Exchanges
	if len(ex) != 4 || len(res.Missing) != 0 {
		t.Fatalf("%d exchanges, missing %+v", len(ex), res.Missing)
	}
	for i, e := range ex {
		if e.Unit == nil || e.Unit.Unit != i || e.Server[0].Tag != e.Client[0].SQL {
			t.Fatalf("exchange %d: %+v", i, e)
		}
	}
}

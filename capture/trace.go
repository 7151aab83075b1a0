package capture

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/pginterleave/interleave/netproxy"
)

// UnitInfo describes one release unit of the attempt the capture belongs to
// (the caller converts the artifact's units).
type UnitInfo struct {
	Actor       string   `json:"actor"`
	Conn        int      `json:"conn"`
	Unit        int      `json:"unit"`
	Hash        string   `json:"hash"`        // FNV-1a 64 of the unit's client bytes, 16 hex digits
	ReleaseStep int      `json:"releaseStep"` // -1: never released
	SQL         []string `json:"sql,omitempty"`
}

// ConnInfo maps a capture stream to an actor's connection.
type ConnInfo struct {
	Actor string `json:"actor"`
	// ActorIndex is the actor's position in the scenario: the actor number
	// the capture's records carry.
	ActorIndex int `json:"actorIndex"`
	Conn       int `json:"conn"`
	Stream     int `json:"stream"` // per actor: each actor has its own proxy
}

// TraceResult is a capture decoded message by message.
type TraceResult struct {
	Streams []StreamTrace `json:"streams"`
	// Missing lists the units with no client write in the capture: never
	// released, or (a problem) released but not found.
	Missing []MissingUnit `json:"missing,omitempty"`
}

// StreamTrace is one proxied client connection.
type StreamTrace struct {
	Actor      string `json:"actor"`
	ActorIndex int    `json:"actorIndex"`
	Stream     int    `json:"stream"`
	Conn       int    `json:"conn"` // -1: not an attached connection
	// Kind is "session" (an attached connection), "cancel" (a CancelRequest
	// connection) or "unattached" (start-up did not complete).
	Kind string `json:"kind"`
	// PCAPPort is the client's TCP port for this stream in WritePCAPNG's
	// output (tcp.port in Wireshark).
	PCAPPort  int        `json:"pcapPort"`
	StartUS   int64      `json:"startUs"`
	Startup   []Message  `json:"startup"`
	Exchanges []Exchange `json:"exchanges"`
	Closed    *Closed    `json:"closed,omitempty"`
}

// Exchange is one client write after start-up and the server messages that
// followed it until the next one: a release unit and its answer, or client
// bytes outside any unit (Terminate).
type Exchange struct {
	Unit          *UnitInfo `json:"unit,omitempty"`
	ClientUS      int64     `json:"clientUs"`
	FirstServerUS *int64    `json:"firstServerUs,omitempty"`
	LastServerUS  *int64    `json:"lastServerUs,omitempty"`
	Client        []Message `json:"client"`
	Server        []Message `json:"server"`
}

// Closed is the end of a stream.
type Closed struct {
	AtUS   int64  `json:"atUs"`
	Reason string `json:"reason,omitempty"`
}

// MissingUnit is a unit the capture has no client write for.
type MissingUnit struct {
	UnitInfo
	Reason string `json:"reason"`
}

// Message is one protocol message (or a run of DataRow or CopyData
// messages, or bytes that did not decode).
type Message struct {
	AtUS   int64  `json:"atUs"`             // first byte
	LastUS int64  `json:"lastUs,omitempty"` // last byte, when later than the first
	From   string `json:"from"`             // client or server
	Type   string `json:"type"`
	Length int    `json:"length"`          // bytes on the wire, type and length fields included
	Count  int    `json:"count,omitempty"` // DataRow and CopyData runs: messages

	SQL       string   `json:"sql,omitempty"`
	Statement *string  `json:"statement,omitempty"`
	Portal    *string  `json:"portal,omitempty"`
	Params    []string `json:"params,omitempty"`
	Target    string   `json:"target,omitempty"` // Describe, Close: statement or portal
	Columns   []Column `json:"columns,omitempty"`
	Tag       string   `json:"tag,omitempty"`
	Severity  string   `json:"severity,omitempty"`
	SQLState  string   `json:"sqlstate,omitempty"`
	Text      string   `json:"message,omitempty"`
	Status    string   `json:"status,omitempty"` // ReadyForQuery: I, T or E
	Detail    string   `json:"detail,omitempty"`

	Redacted    bool `json:"redacted,omitempty"`
	Undecodable bool `json:"undecodable,omitempty"`

	// ord orders the messages of a stream by the record their first byte
	// came in, then by decoding order.
	ord [2]int
}

// Column is one field of a RowDescription.
type Column struct {
	Name    string `json:"name"`
	TypeOID uint32 `json:"typeOid"`
	Format  int16  `json:"format"`
}

const (
	fromClient = "client"
	fromServer = "server"
)

// streamKey identifies a capture stream: stream ids are per actor.
type streamKey struct{ actor, stream int }

// maxStreams bounds the streams of one capture: each gets a client port in
// WritePCAPNG, from 40000 up.
const (
	firstPort  = 40000
	maxStreams = 65535 - firstPort + 1
)

// streamPorts gives every stream of recs its client port: 40000 plus its
// rank in (actor, stream) order.
func streamPorts(recs []Record) (map[streamKey]int, []streamKey, error) {
	seen := map[streamKey]bool{}
	var keys []streamKey
	for _, r := range recs {
		k := streamKey{r.Actor, r.Stream}
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	if len(keys) > maxStreams {
		return nil, nil, fmt.Errorf("%w: %d streams; at most %d fit in TCP port numbers", ErrCorrupt, len(keys), maxStreams)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].actor != keys[j].actor {
			return keys[i].actor < keys[j].actor
		}
		return keys[i].stream < keys[j].stream
	})
	ports := make(map[streamKey]int, len(keys))
	for i, k := range keys {
		ports[k] = firstPort + i
	}
	return ports, keys, nil
}

// HashBytes is the hash the scheduler records for a unit: FNV-1a 64 of its
// client bytes, as 16 hex digits.
func HashBytes(b []byte) string {
	h := fnv.New64a()
	h.Write(b)
	return fmt.Sprintf("%016x", h.Sum64())
}

// Trace decodes raw (a capture) message by message, per stream and per
// release unit. units and conns come from the attempt's artifact; a unit is
// matched to the client write whose bytes hash to its hash. Bytes that do
// not decode become explicit undecodable messages; only a capture whose
// records do not parse is an error.
func Trace(raw []byte, units []UnitInfo, conns []ConnInfo) (*TraceResult, error) {
	recs, err := Decode(raw)
	if err != nil {
		return nil, err
	}
	ports, keys, err := streamPorts(recs)
	if err != nil {
		return nil, err
	}
	names := map[int]string{}
	connByKey := map[streamKey]ConnInfo{}
	keyByConn := map[connRef]streamKey{}
	for _, c := range conns {
		k := streamKey{c.ActorIndex, c.Stream}
		if _, dup := connByKey[k]; dup {
			continue
		}
		connByKey[k] = c
		keyByConn[connRef{c.Actor, c.Conn}] = k
		if _, ok := names[c.ActorIndex]; !ok {
			names[c.ActorIndex] = c.Actor
		}
	}
	res := &TraceResult{Streams: []StreamTrace{}}
	tracers := make(map[streamKey]*streamTracer, len(keys))
	for _, k := range keys {
		st := &streamTracer{t: StreamTrace{
			Actor: names[k.actor], ActorIndex: k.actor, Stream: k.stream, Conn: -1, Kind: "unattached",
			PCAPPort: ports[k], Startup: []Message{}, Exchanges: []Exchange{},
		}}
		if st.t.Actor == "" {
			st.t.Actor = "actor#" + strconv.Itoa(k.actor)
		}
		if c, ok := connByKey[k]; ok {
			st.t.Conn, st.t.Kind = c.Conn, "session"
		}
		tracers[k] = st
	}
	// Units go to their connection's stream in ordinal order.
	sorted := append([]UnitInfo(nil), units...)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		if a.Actor != b.Actor {
			return a.Actor < b.Actor
		}
		if a.Conn != b.Conn {
			return a.Conn < b.Conn
		}
		return a.Unit < b.Unit
	})
	for _, u := range sorted {
		k, ok := keyByConn[connRef{u.Actor, u.Conn}]
		st := tracers[k]
		if !ok || st == nil {
			res.Missing = append(res.Missing, MissingUnit{UnitInfo: u, Reason: missingReason(u, "its connection is not in the capture")})
			continue
		}
		u.Hash = strings.ToLower(u.Hash)
		st.units = append(st.units, u)
	}
	for _, r := range recs {
		tracers[streamKey{r.Actor, r.Stream}].record(r)
	}
	for _, k := range keys {
		st := tracers[k]
		st.finish()
		for _, u := range st.units[st.next:] {
			res.Missing = append(res.Missing, MissingUnit{UnitInfo: u, Reason: missingReason(u, fmt.Sprintf("no client write of stream %d hashes to %s", k.stream, u.Hash))})
		}
		for _, u := range st.skipped {
			res.Missing = append(res.Missing, MissingUnit{UnitInfo: u, Reason: missingReason(u, fmt.Sprintf("no client write of stream %d hashes to %s before the next unit's", k.stream, u.Hash))})
		}
		res.Streams = append(res.Streams, st.t)
	}
	sort.SliceStable(res.Missing, func(i, j int) bool {
		a, b := res.Missing[i], res.Missing[j]
		if a.Actor != b.Actor {
			return a.Actor < b.Actor
		}
		if a.Conn != b.Conn {
			return a.Conn < b.Conn
		}
		return a.Unit < b.Unit
	})
	return res, nil
}

type connRef struct {
	actor string
	conn  int
}

func missingReason(u UnitInfo, otherwise string) string {
	if u.ReleaseStep < 0 {
		return "never released"
	}
	return otherwise
}

func micros(d time.Duration) int64 {
	if d < 0 {
		return 0
	}
	return d.Microseconds()
}

// Client decoding states.
const (
	clientStartup = iota // start-up packets: SSLRequest, StartupMessage, CancelRequest
	clientTyped          // typed messages
)

// streamTracer decodes one stream as its records arrive in capture order.
type streamTracer struct {
	t       StreamTrace
	started bool
	units   []UnitInfo // this connection's units, by ordinal
	next    int        // the first unit not yet matched
	byHash  map[string][]int
	skipped []UnitInfo // units passed over by a later unit's match

	client   int
	lastAuth uint32 // the last authentication request: names the client's answer
	cur      int    // the latest exchange; -1: start-up
	// ReadyForQuery messages each exchange's client messages ask for and
	// those it got: server messages go to the first exchange still owed
	// one, so that an answer still arriving after a later write (Terminate
	// after a cancel) stays with its unit.
	zWant, zGot []int
	open        int

	rec, sub int // the record being decoded (from 1) and messages so far

	// Server bytes not yet decoded: they arrive in chunks that need not
	// follow message boundaries.
	buf        []byte
	base       int64 // stream offset of buf[0]
	segs       []seg // the records buf came from
	broken     bool  // a length field was invalid: the rest does not frame
	sslPending int   // single-byte answers to SSLRequest/GSSENCRequest owed
}

type seg struct {
	off int64 // stream offset of the record's first byte
	at  time.Duration
	ex  int
	rec int
}

func (st *streamTracer) record(r Record) {
	if !st.started {
		st.started, st.t.StartUS, st.cur = true, micros(r.At), -1
	}
	st.rec++
	switch r.Kind {
	case KindClosed:
		st.flushServer()
		st.t.Closed = &Closed{AtUS: micros(r.At), Reason: string(r.Data)}
	case KindRedacted:
		if r.Dir == netproxy.ClientToServer {
			st.add(-2, st.redacted(r, fromClient))
			return
		}
		st.flushServer()
		if len(r.Header) >= 9 && r.Header[0] == 'R' {
			st.lastAuth = binary.BigEndian.Uint32(r.Header[5:9])
		}
		st.add(st.cur, st.redacted(r, fromServer))
	default:
		if len(r.Data) == 0 {
			return
		}
		if r.Dir == netproxy.ClientToServer {
			st.clientRecord(r)
		} else {
			st.serverBytes(r)
		}
	}
}

// add appends m to exchange ex (-1: start-up; -2: where a client message
// goes now), merging runs of DataRow and CopyData.
func (st *streamTracer) add(ex int, m Message) {
	if ex == -2 {
		ex = st.cur
	}
	if m.ord[0] == 0 {
		m.ord[0] = st.rec
	}
	st.sub++
	m.ord[1] = st.sub
	list := &st.t.Startup
	if ex >= 0 && m.From == fromServer {
		for st.open < len(st.zWant) && st.zGot[st.open] >= st.zWant[st.open] {
			st.open++
		}
		if st.open < ex {
			ex = st.open
		}
		if m.Type == "ReadyForQuery" {
			st.zGot[ex]++
		}
	}
	if ex >= 0 {
		e := &st.t.Exchanges[ex]
		if m.From == fromClient {
			list = &e.Client
		} else {
			list = &e.Server
			first, last := m.AtUS, m.AtUS
			if m.LastUS > last {
				last = m.LastUS
			}
			if e.FirstServerUS == nil {
				e.FirstServerUS = &first
			}
			e.LastServerUS = &last
		}
	}
	if n := len(*list); n > 0 && (m.Type == "DataRow" || m.Type == "CopyData") {
		p := &(*list)[n-1]
		if p.Type == m.Type && p.From == m.From {
			p.Count++
			p.Length += m.Length
			if t := max(m.AtUS, m.LastUS); t > p.AtUS {
				p.LastUS = t
			}
			return
		}
	}
	*list = append(*list, m)
}

func (st *streamTracer) redacted(r Record, from string) Message {
	m := Message{AtUS: micros(r.At), From: from, Length: r.Length, Redacted: true,
		Detail: fmt.Sprintf("[redacted: %d bytes]", r.Length)}
	if from == fromClient {
		switch st.lastAuth {
		case pgproto3.AuthTypeSASL:
			m.Type = "SASLInitialResponse"
		case pgproto3.AuthTypeSASLContinue, pgproto3.AuthTypeSASLFinal:
			m.Type = "SASLResponse"
		case pgproto3.AuthTypeGSS, pgproto3.AuthTypeGSSCont:
			m.Type = "GSSResponse"
		default:
			m.Type = "PasswordMessage"
		}
	} else {
		m.Type = "Authentication"
		if len(r.Header) >= 9 && r.Header[0] == 'R' {
			m.Type = authName(binary.BigEndian.Uint32(r.Header[5:9]))
		}
	}
	if r.What != "" {
		m.Detail += " " + r.What
	}
	return m
}

// clientRecord decodes one client write. A release unit is exactly one
// write; so are the start-up packet, COPY data and Terminate.
func (st *streamTracer) clientRecord(r Record) {
	at := micros(r.At)
	if st.client == clientStartup {
		st.add(-1, st.startupPacket(r.Data, at))
		return
	}
	var unit *UnitInfo
	if len(st.units) > st.next {
		if st.byHash == nil {
			st.byHash = map[string][]int{}
			for j, u := range st.units {
				st.byHash[u.Hash] = append(st.byHash[u.Hash], j)
			}
		}
		// The first unit not yet matched with these bytes: units with the
		// same bytes (BEGIN, COMMIT) match in ordinal order.
		h := HashBytes(r.Data)
		list := st.byHash[h]
		for len(list) > 0 && list[0] < st.next {
			list = list[1:] // passed over
		}
		if len(list) > 0 {
			j := list[0]
			st.skipped = append(st.skipped, st.units[st.next:j]...)
			u := st.units[j]
			unit, st.next = &u, j+1
			list = list[1:]
		}
		st.byHash[h] = list
	}
	msgs := decodeClient(r.Data, at)
	if unit == nil && st.cur >= 0 && st.t.Exchanges[st.cur].Unit != nil && copyOnly(msgs) {
		// COPY data belongs to the unit that started the COPY.
		for _, m := range msgs {
			st.add(st.cur, m)
		}
		return
	}
	// Server bytes of a message still arriving keep framing across the
	// write: a driver may send Terminate while a cancelled unit answers.
	st.t.Exchanges = append(st.t.Exchanges, Exchange{Unit: unit, ClientUS: at, Client: []Message{}, Server: []Message{}})
	st.cur = len(st.t.Exchanges) - 1
	want := 0
	for _, m := range msgs {
		if m.Type == "Query" || m.Type == "Sync" || m.Type == "FunctionCall" {
			want++
		}
	}
	st.zWant, st.zGot = append(st.zWant, want), append(st.zGot, 0)
	for _, m := range msgs {
		st.add(st.cur, m)
	}
}

func copyOnly(msgs []Message) bool {
	for _, m := range msgs {
		if m.Type != "CopyData" && m.Type != "CopyDone" && m.Type != "CopyFail" {
			return false
		}
	}
	return len(msgs) > 0
}

// Start-up packet codes.
const (
	codeSSLRequest    = 80877103
	codeGSSENCRequest = 80877104
	codeCancelRequest = 80877102
)

func (st *streamTracer) startupPacket(b []byte, at int64) Message {
	if len(b) < 8 {
		return undecodable(fromClient, at, len(b), "a start-up packet shorter than 8 bytes")
	}
	n := int(binary.BigEndian.Uint32(b))
	if n != len(b) {
		return undecodable(fromClient, at, len(b), fmt.Sprintf("a start-up packet of %d bytes says it has %d", len(b), n))
	}
	body := b[4:]
	m := Message{AtUS: at, From: fromClient, Length: len(b)}
	switch code := binary.BigEndian.Uint32(body); code {
	case codeSSLRequest, codeGSSENCRequest:
		var sm pgproto3.FrontendMessage = &pgproto3.SSLRequest{}
		m.Type, m.Detail = "SSLRequest", "the proxy answers N: no TLS between the client and the proxy"
		if code == codeGSSENCRequest {
			sm, m.Type, m.Detail = &pgproto3.GSSEncRequest{}, "GSSENCRequest", "the proxy answers N: no GSS encryption"
		}
		if err := safeDecode(sm, body); err != nil {
			return undecodable(fromClient, at, len(b), err.Error())
		}
		st.sslPending++
	case codeCancelRequest:
		var c pgproto3.CancelRequest
		if err := safeDecode(&c, body); err != nil {
			return undecodable(fromClient, at, len(b), err.Error())
		}
		st.client = clientTyped
		if st.t.Kind == "unattached" {
			st.t.Kind = "cancel"
		}
		m.Type, m.Detail = "CancelRequest", fmt.Sprintf("backend pid %d", c.ProcessID)
	case pgproto3.ProtocolVersion30, pgproto3.ProtocolVersion32:
		var s pgproto3.StartupMessage
		if err := safeDecode(&s, body); err != nil {
			return undecodable(fromClient, at, len(b), err.Error())
		}
		st.client = clientTyped
		keys := make([]string, 0, len(s.Parameters))
		for k := range s.Parameters {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := []string{fmt.Sprintf("protocol %d.%d", s.ProtocolVersion>>16, s.ProtocolVersion&0xffff)}
		for _, k := range keys {
			v := s.Parameters[k]
			if k == "password" {
				v = "[redacted]"
			}
			parts = append(parts, k+"="+v)
		}
		m.Type, m.Detail = "StartupMessage", strings.Join(parts, " ")
	default:
		return undecodable(fromClient, at, len(b), fmt.Sprintf("a start-up packet with the unknown code %d", code))
	}
	return m
}

// decodeClient decodes the typed messages of one client write.
func decodeClient(b []byte, at int64) []Message {
	var out []Message
	for len(b) > 0 {
		if len(b) < 5 {
			return append(out, undecodable(fromClient, at, len(b), "a message header cut short"))
		}
		n := int64(binary.BigEndian.Uint32(b[1:5]))
		if n < 4 || 1+n > int64(len(b)) {
			return append(out, undecodable(fromClient, at, len(b), fmt.Sprintf("message %s says it has %d bytes; the write has %d", typeByte(b[0]), n+1, len(b))))
		}
		out = append(out, clientMessage(b[0], b[5:1+n], at))
		b = b[1+n:]
	}
	return out
}

func clientMessage(typ byte, body []byte, at int64) Message {
	m := Message{AtUS: at, From: fromClient, Length: 5 + len(body)}
	fail := func(err error) Message {
		return undecodable(fromClient, at, m.Length, fmt.Sprintf("%s: %v", typeByte(typ), err))
	}
	switch typ {
	case 'Q':
		var q pgproto3.Query
		if err := safeDecode(&q, body); err != nil {
			return fail(err)
		}
		m.Type, m.SQL = "Query", q.String
	case 'P':
		var p pgproto3.Parse
		if err := safeDecode(&p, body); err != nil {
			return fail(err)
		}
		m.Type, m.SQL, m.Statement = "Parse", p.Query, strPtr(p.Name)
		if len(p.ParameterOIDs) > 0 {
			oids := make([]string, len(p.ParameterOIDs))
			for i, o := range p.ParameterOIDs {
				oids[i] = typeName(o)
			}
			m.Detail = "parameter types " + strings.Join(oids, ", ")
		}
	case 'B':
		var bd pgproto3.Bind
		if err := safeDecode(&bd, body); err != nil {
			return fail(err)
		}
		m.Type, m.Statement, m.Portal = "Bind", strPtr(bd.PreparedStatement), strPtr(bd.DestinationPortal)
		m.Params = renderParams(&bd)
		if m.Params == nil {
			m.Params = []string{}
		}
		if len(bd.ResultFormatCodes) > 0 {
			m.Detail = "result formats " + formatCodes(bd.ResultFormatCodes)
		}
	case 'D', 'C':
		var kind byte
		var name string
		if typ == 'D' {
			var d pgproto3.Describe
			if err := safeDecode(&d, body); err != nil {
				return fail(err)
			}
			m.Type, kind, name = "Describe", d.ObjectType, d.Name
		} else {
			var c pgproto3.Close
			if err := safeDecode(&c, body); err != nil {
				return fail(err)
			}
			m.Type, kind, name = "Close", c.ObjectType, c.Name
		}
		if kind == 'S' {
			m.Target, m.Statement = "statement", strPtr(name)
		} else {
			m.Target, m.Portal = "portal", strPtr(name)
		}
	case 'E':
		var e pgproto3.Execute
		if err := safeDecode(&e, body); err != nil {
			return fail(err)
		}
		m.Type, m.Portal = "Execute", strPtr(e.Portal)
		if e.MaxRows > 0 {
			m.Detail = fmt.Sprintf("at most %d rows", e.MaxRows)
		}
	case 'S':
		m.Type = "Sync"
	case 'H':
		m.Type = "Flush"
	case 'X':
		m.Type = "Terminate"
	case 'F':
		var f pgproto3.FunctionCall
		if err := safeDecode(&f, body); err != nil {
			return fail(err)
		}
		args := make([]string, len(f.Arguments))
		for i, a := range f.Arguments {
			binaryFmt := false
			switch len(f.ArgFormatCodes) {
			case 0:
			case 1:
				binaryFmt = f.ArgFormatCodes[0] == 1
			default:
				binaryFmt = i < len(f.ArgFormatCodes) && f.ArgFormatCodes[i] == 1
			}
			args[i] = renderValue(a, binaryFmt)
		}
		m.Type, m.Params, m.Detail = "FunctionCall", args, fmt.Sprintf("function oid %d", f.Function)
	case 'd':
		m.Type, m.Count = "CopyData", 1
	case 'c':
		m.Type = "CopyDone"
	case 'f':
		var f pgproto3.CopyFail
		if err := safeDecode(&f, body); err != nil {
			return fail(err)
		}
		m.Type, m.Text = "CopyFail", f.Message
	case 'p':
		// After start-up the proxy refuses password messages; one that is
		// here was recorded before authentication completed and is never
		// shown.
		m.Type, m.Redacted, m.Detail = "PasswordMessage", true, fmt.Sprintf("[redacted: %d bytes]", m.Length)
	default:
		return undecodable(fromClient, at, m.Length, "unknown client message type "+typeByte(typ))
	}
	return m
}

// serverBytes appends one chunk of server bytes and decodes every message it
// completes.
func (st *streamTracer) serverBytes(r Record) {
	if st.broken {
		st.add(st.cur, undecodable(fromServer, micros(r.At), len(r.Data), "after a message that does not frame"))
		return
	}
	st.segs = append(st.segs, seg{off: st.base + int64(len(st.buf)), at: r.At, ex: st.cur, rec: st.rec})
	st.buf = append(st.buf, r.Data...)
	st.decodeServer()
}

// maxServerMessage bounds a server message's declared length; PostgreSQL
// sends at most 1 GiB per message.
const maxServerMessage = 1 << 30

func (st *streamTracer) decodeServer() {
	for len(st.buf) > 0 {
		if st.sslPending > 0 {
			st.sslPending--
			m := Message{From: fromServer, Length: 1, Type: "SSLResponse"}
			switch st.buf[0] {
			case 'N':
				m.Detail = "N: not supported"
			case 'S':
				m.Detail = "S: TLS follows"
			default:
				m.Detail = "unexpected answer " + typeByte(st.buf[0])
			}
			st.emit(1, m)
			continue
		}
		if len(st.buf) < 5 {
			return
		}
		n := int64(binary.BigEndian.Uint32(st.buf[1:5]))
		if n < 4 || n > maxServerMessage {
			st.broken = true
			st.emit(len(st.buf), undecodable(fromServer, 0, len(st.buf), fmt.Sprintf("message %s with length field %d", typeByte(st.buf[0]), n)))
			return
		}
		if 1+n > int64(len(st.buf)) {
			return
		}
		m := st.serverMessage(st.buf[0], st.buf[5:1+n])
		st.emit(int(1+n), m)
	}
}

// emit consumes the first n undecoded server bytes as m, timed by the
// records its first and last bytes came in, and files it under the exchange
// that was current when its first byte arrived.
func (st *streamTracer) emit(n int, m Message) {
	first := st.segAt(st.base)
	last := st.segAt(st.base + int64(n) - 1)
	m.AtUS = micros(first.at)
	if l := micros(last.at); l > m.AtUS {
		m.LastUS = l
	}
	m.Length = n
	m.ord[0] = first.rec
	st.buf = st.buf[n:]
	st.base += int64(n)
	for len(st.segs) > 1 && st.segs[1].off <= st.base {
		st.segs = st.segs[1:]
	}
	if len(st.buf) == 0 {
		st.buf = nil
	}
	st.add(first.ex, m)
}

func (st *streamTracer) segAt(off int64) seg {
	i := sort.Search(len(st.segs), func(i int) bool { return st.segs[i].off > off })
	if i == 0 {
		return seg{ex: st.cur, rec: st.rec}
	}
	return st.segs[i-1]
}

// flushServer reports undecoded server bytes as cut short and gives up
// owed SSL answers.
func (st *streamTracer) flushServer() {
	st.sslPending = 0
	if len(st.buf) > 0 {
		st.emit(len(st.buf), undecodable(fromServer, 0, len(st.buf), "a message cut short"))
	}
}

func (st *streamTracer) finish() {
	st.flushServer()
	sortMessages(st.t.Startup)
}

func sortMessages(ms []Message) {
	sort.SliceStable(ms, func(i, j int) bool {
		a, b := ms[i].ord, ms[j].ord
		return a[0] < b[0] || a[0] == b[0] && a[1] < b[1]
	})
}

func (st *streamTracer) serverMessage(typ byte, body []byte) Message {
	m := Message{From: fromServer, Length: 5 + len(body)}
	fail := func(err error) Message {
		return undecodable(fromServer, 0, m.Length, fmt.Sprintf("%s: %v", typeByte(typ), err))
	}
	dec := func(msg pgproto3.BackendMessage, name string) bool {
		if err := safeDecode(msg, body); err != nil {
			m = fail(err)
			return false
		}
		m.Type = name
		return true
	}
	switch typ {
	case '1':
		m.Type = "ParseComplete"
	case '2':
		m.Type = "BindComplete"
	case '3':
		m.Type = "CloseComplete"
	case 'n':
		m.Type = "NoData"
	case 'I':
		m.Type = "EmptyQueryResponse"
	case 's':
		m.Type = "PortalSuspended"
	case 'c':
		m.Type = "CopyDone"
	case 'd':
		m.Type, m.Count = "CopyData", 1
	case 'D':
		var d pgproto3.DataRow
		if dec(&d, "DataRow") {
			m.Count = 1
		}
	case 'T':
		var rd pgproto3.RowDescription
		if dec(&rd, "RowDescription") {
			m.Columns = make([]Column, len(rd.Fields))
			for i, f := range rd.Fields {
				m.Columns[i] = Column{Name: string(f.Name), TypeOID: f.DataTypeOID, Format: f.Format}
			}
		}
	case 't':
		var pd pgproto3.ParameterDescription
		if dec(&pd, "ParameterDescription") {
			oids := make([]string, len(pd.ParameterOIDs))
			for i, o := range pd.ParameterOIDs {
				oids[i] = typeName(o)
			}
			m.Detail = "parameter types " + strings.Join(oids, ", ")
			if len(oids) == 0 {
				m.Detail = "no parameters"
			}
		}
	case 'C':
		var c pgproto3.CommandComplete
		if dec(&c, "CommandComplete") {
			m.Tag = string(c.CommandTag)
		}
	case 'E', 'N':
		var e pgproto3.ErrorResponse
		if typ == 'N' {
			var n pgproto3.NoticeResponse
			if !dec(&n, "NoticeResponse") {
				break
			}
			e = pgproto3.ErrorResponse(n)
		} else if !dec(&e, "ErrorResponse") {
			break
		}
		m.Severity, m.SQLState, m.Text = e.Severity, e.Code, e.Message
		if e.Detail != "" {
			m.Detail = "detail: " + e.Detail
		}
	case 'Z':
		var z pgproto3.ReadyForQuery
		if dec(&z, "ReadyForQuery") {
			m.Status = string(rune(z.TxStatus))
			if z.TxStatus < 0x20 || z.TxStatus > 0x7e {
				m.Status = fmt.Sprintf("0x%02x", z.TxStatus)
			}
		}
	case 'G', 'H', 'W':
		var overall byte
		var cols []uint16
		switch typ {
		case 'G':
			var c pgproto3.CopyInResponse
			if !dec(&c, "CopyInResponse") {
				return m
			}
			overall, cols = c.OverallFormat, c.ColumnFormatCodes
		case 'H':
			var c pgproto3.CopyOutResponse
			if !dec(&c, "CopyOutResponse") {
				return m
			}
			overall, cols = c.OverallFormat, c.ColumnFormatCodes
		default:
			var c pgproto3.CopyBothResponse
			if !dec(&c, "CopyBothResponse") {
				return m
			}
			overall, cols = c.OverallFormat, c.ColumnFormatCodes
		}
		format := "text"
		if overall == 1 {
			format = "binary"
		}
		m.Detail = fmt.Sprintf("%s format, %d columns", format, len(cols))
	case 'S':
		var p pgproto3.ParameterStatus
		if dec(&p, "ParameterStatus") {
			m.Detail = p.Name + "=" + p.Value
		}
	case 'K':
		var k pgproto3.BackendKeyData
		if dec(&k, "BackendKeyData") {
			m.Detail = fmt.Sprintf("backend pid %d", k.ProcessID)
		}
	case 'A':
		var a pgproto3.NotificationResponse
		if dec(&a, "NotificationResponse") {
			m.Detail = fmt.Sprintf("pid %d channel %s payload %s", a.PID, strconv.Quote(a.Channel), strconv.Quote(a.Payload))
		}
	case 'V':
		var f pgproto3.FunctionCallResponse
		if dec(&f, "FunctionCallResponse") {
			m.Detail = "result " + renderValue(f.Result, true)
		}
	case 'v':
		var v pgproto3.NegotiateProtocolVersion
		if dec(&v, "NegotiateProtocolVersion") {
			m.Detail = fmt.Sprintf("newest minor version %d; unrecognized options %s", v.NewestMinorProtocol, strings.Join(v.UnrecognizedOptions, ", "))
		}
	case 'R':
		return st.authMessage(body)
	default:
		return undecodable(fromServer, 0, m.Length, "unknown server message type "+typeByte(typ))
	}
	return m
}

func (st *streamTracer) authMessage(body []byte) Message {
	m := Message{From: fromServer, Length: 5 + len(body)}
	if len(body) < 4 {
		return undecodable(fromServer, 0, m.Length, "an authentication message without its type")
	}
	code := binary.BigEndian.Uint32(body)
	st.lastAuth = code
	m.Type = authName(code)
	var msg pgproto3.BackendMessage
	switch code {
	case pgproto3.AuthTypeOk:
		msg = &pgproto3.AuthenticationOk{}
	case pgproto3.AuthTypeCleartextPassword:
		msg = &pgproto3.AuthenticationCleartextPassword{}
	case pgproto3.AuthTypeMD5Password:
		msg = &pgproto3.AuthenticationMD5Password{}
	case pgproto3.AuthTypeGSS:
		msg = &pgproto3.AuthenticationGSS{}
	case pgproto3.AuthTypeSASL:
		s := &pgproto3.AuthenticationSASL{}
		if err := safeDecode(s, body); err != nil {
			return undecodable(fromServer, 0, m.Length, "AuthenticationSASL: "+err.Error())
		}
		m.Detail = "mechanisms " + strings.Join(s.AuthMechanisms, ", ")
		return m
	default:
		// SASL continuations (recorded redacted by the proxy), GSS
		// continuations and the rest: the type is all that is shown.
		return m
	}
	if err := safeDecode(msg, body); err != nil {
		return undecodable(fromServer, 0, m.Length, m.Type+": "+err.Error())
	}
	return m
}

func authName(code uint32) string {
	switch code {
	case pgproto3.AuthTypeOk:
		return "AuthenticationOk"
	case 2:
		return "AuthenticationKerberosV5"
	case pgproto3.AuthTypeCleartextPassword:
		return "AuthenticationCleartextPassword"
	case pgproto3.AuthTypeMD5Password:
		return "AuthenticationMD5Password"
	case pgproto3.AuthTypeSCMCreds:
		return "AuthenticationSCMCredential"
	case pgproto3.AuthTypeGSS:
		return "AuthenticationGSS"
	case pgproto3.AuthTypeGSSCont:
		return "AuthenticationGSSContinue"
	case pgproto3.AuthTypeSSPI:
		return "AuthenticationSSPI"
	case pgproto3.AuthTypeSASL:
		return "AuthenticationSASL"
	case pgproto3.AuthTypeSASLContinue:
		return "AuthenticationSASLContinue"
	case pgproto3.AuthTypeSASLFinal:
		return "AuthenticationSASLFinal"
	}
	return fmt.Sprintf("Authentication(%d)", code)
}

// safeDecode runs a pgproto3 decoder on untrusted bytes: a decoder that
// panics on them yields an error, never a crash.
func safeDecode(m interface{ Decode([]byte) error }, body []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("does not decode (%v)", r)
		}
	}()
	return m.Decode(body)
}

func undecodable(from string, at int64, n int, why string) Message {
	return Message{AtUS: at, From: from, Type: "undecodable", Length: n, Undecodable: true, Detail: why}
}

func typeByte(b byte) string {
	if b >= 0x21 && b <= 0x7e {
		return "'" + string(rune(b)) + "'"
	}
	return fmt.Sprintf("0x%02x", b)
}

func strPtr(s string) *string { return &s }

// renderParams shows bind values: text-format values as quoted text, binary
// ones (and text that is not UTF-8) as hex, with a reading as an integer
// for 4 and 8 bytes, NULL as NULL.
func renderParams(b *pgproto3.Bind) []string {
	out := make([]string, len(b.Parameters))
	for i, p := range b.Parameters {
		binaryFmt := false
		switch len(b.ParameterFormatCodes) {
		case 0:
		case 1:
			binaryFmt = b.ParameterFormatCodes[0] == 1
		default:
			binaryFmt = i < len(b.ParameterFormatCodes) && b.ParameterFormatCodes[i] == 1
		}
		out[i] = renderValue(p, binaryFmt)
	}
	return out
}

// maxValue bounds a rendered parameter value.
const maxValue = 200

func renderValue(p []byte, binaryFmt bool) string {
	if p == nil {
		return "NULL"
	}
	if !binaryFmt && utf8.Valid(p) {
		if len(p) > maxValue {
			cut := maxValue
			for cut > 0 && !utf8.RuneStart(p[cut]) {
				cut--
			}
			return strconv.Quote(string(p[:cut])) + fmt.Sprintf("… (%d bytes)", len(p))
		}
		return strconv.Quote(string(p))
	}
	const digits = "0123456789abcdef"
	show := p
	if len(show) > maxValue/2 {
		show = show[:maxValue/2]
	}
	h := make([]byte, 2*len(show))
	for i, c := range show {
		h[2*i], h[2*i+1] = digits[c>>4], digits[c&15]
	}
	s := `\x` + string(h)
	if len(show) < len(p) {
		s += fmt.Sprintf("… (%d bytes)", len(p))
	}
	switch {
	case !binaryFmt:
		return s + " (text, not UTF-8)"
	case len(p) == 4:
		// As the artifact renders them (unitsql.go): drivers send integers
		// this way.
		return s + " (binary; as int4 " + strconv.Itoa(int(int32(binary.BigEndian.Uint32(p)))) + ")"
	case len(p) == 8:
		return s + " (binary; as int8 " + strconv.FormatInt(int64(binary.BigEndian.Uint64(p)), 10) + ")"
	}
	return s + " (binary)"
}

func formatCodes(codes []int16) string {
	parts := make([]string, len(codes))
	for i, c := range codes {
		switch c {
		case 0:
			parts[i] = "text"
		case 1:
			parts[i] = "binary"
		default:
			parts[i] = strconv.Itoa(int(c))
		}
	}
	return strings.Join(parts, ", ")
}

// typeNames names the built-in types a trace meets most.
var typeNames = map[uint32]string{
	0: "unspecified", 16: "bool", 17: "bytea", 18: "char", 19: "name", 20: "int8", 21: "int2", 23: "int4",
	25: "text", 26: "oid", 114: "json", 700: "float4", 701: "float8", 1042: "bpchar", 1043: "varchar",
	1082: "date", 1083: "time", 1114: "timestamp", 1184: "timestamptz", 1186: "interval", 1700: "numeric",
	2950: "uuid", 3802: "jsonb", 1007: "int4[]", 1016: "int8[]", 1009: "text[]",
}

func typeName(oid uint32) string {
	if n, ok := typeNames[oid]; ok {
		return n
	}
	return "oid " + strconv.FormatUint(uint64(oid), 10)
}

// WriteText writes the trace for a reader: per stream its start-up, then
// each release unit with the client's messages and the server's answer, one
// line per message with its time in microseconds since the attempt started.
func (t *TraceResult) WriteText(w io.Writer) error {
	tw, yw := 0, 0
	measure := func(ms []Message) {
		for _, m := range ms {
			tw = max(tw, len(strconv.FormatInt(m.AtUS, 10)))
			yw = max(yw, utf8.RuneCountInString(typeColumn(m)))
		}
	}
	for _, s := range t.Streams {
		measure(s.Startup)
		for _, e := range s.Exchanges {
			measure(e.Client)
			measure(e.Server)
		}
	}
	yw = min(yw, 28)
	ew := &errWriter{w: w}
	line := func(m Message) {
		arrow := "→"
		if m.From == fromServer {
			arrow = "←"
		}
		d := m.details()
		if m.LastUS > m.AtUS {
			d = strings.TrimSpace(d + fmt.Sprintf(" (until %dµs)", m.LastUS))
		}
		ew.printf("%s", strings.TrimRight(fmt.Sprintf("    %*dµs %s %-*s %s", tw, m.AtUS, arrow, yw, typeColumn(m), d), " "))
	}
	for i, s := range t.Streams {
		if i > 0 {
			ew.printf("")
		}
		head := fmt.Sprintf("%s stream %d", s.Actor, s.Stream)
		if s.Conn >= 0 {
			head = fmt.Sprintf("%s conn #%d (stream %d)", s.Actor, s.Conn, s.Stream)
		}
		ew.printf("%s: %s; tcp port %d in the pcapng", head, s.Kind, s.PCAPPort)
		if len(s.Startup) > 0 {
			ew.printf("  start-up")
			for _, m := range s.Startup {
				line(m)
			}
		}
		for _, e := range s.Exchanges {
			ew.printf("  %s", e.header())
			// Client and server messages in the order their first bytes
			// crossed the proxy (COPY data follows CopyInResponse).
			all := append(append([]Message(nil), e.Client...), e.Server...)
			sortMessages(all)
			for _, m := range all {
				line(m)
			}
		}
		if c := s.Closed; c != nil {
			if c.Reason != "" {
				ew.printf("  closed at %dµs: %s", c.AtUS, oneLine(c.Reason))
			} else {
				ew.printf("  closed at %dµs", c.AtUS)
			}
		}
	}
	if len(t.Missing) > 0 {
		ew.printf("")
		ew.printf("units without a client write in the capture:")
		for _, u := range t.Missing {
			ew.printf("  %s#%d.%d  hash %s: %s", u.Actor, u.Conn, u.Unit, u.Hash, u.Reason)
		}
	}
	return ew.err
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format+"\n", args...)
	}
}

func (e Exchange) header() string {
	var b strings.Builder
	if u := e.Unit; u != nil {
		fmt.Fprintf(&b, "unit %s#%d.%d", u.Actor, u.Conn, u.Unit)
		if u.ReleaseStep >= 0 {
			fmt.Fprintf(&b, "  step %d", u.ReleaseStep)
		}
		fmt.Fprintf(&b, "  hash %s", u.Hash)
	} else {
		b.WriteString("client write outside any release unit")
	}
	fmt.Fprintf(&b, "  written %dµs", e.ClientUS)
	switch {
	case e.FirstServerUS == nil:
		b.WriteString("  no answer")
	case *e.LastServerUS > *e.FirstServerUS:
		fmt.Fprintf(&b, "  answered %dµs–%dµs", *e.FirstServerUS, *e.LastServerUS)
	default:
		fmt.Fprintf(&b, "  answered %dµs", *e.FirstServerUS)
	}
	if u := e.Unit; u != nil && len(u.SQL) > 0 {
		named := false
		for _, m := range e.Client {
			named = named || m.Type == "Query" || m.Type == "Parse"
		}
		if !named {
			// The unit binds a statement prepared earlier: say which.
			parts := make([]string, len(u.SQL))
			for i, q := range u.SQL {
				parts[i] = oneLine(q)
			}
			fmt.Fprintf(&b, "  runs: %s", strings.Join(parts, "; "))
		}
	}
	return b.String()
}

func typeColumn(m Message) string {
	if m.Undecodable {
		return fmt.Sprintf("[undecodable %d bytes]", m.Length)
	}
	return m.Type
}

func quoteName(p *string) string {
	if p == nil {
		return `""`
	}
	return strconv.Quote(*p)
}

// details renders a message's fields after its type.
func (m Message) details() string {
	var parts []string
	add := func(format string, args ...any) { parts = append(parts, fmt.Sprintf(format, args...)) }
	switch m.Type {
	case "Query":
		add("sql: %s", oneLine(m.SQL))
	case "Parse":
		add("statement %s", quoteName(m.Statement))
		if m.Detail != "" {
			add("%s", m.Detail)
		}
		add("sql: %s", oneLine(m.SQL))
		return strings.Join(parts, "  ")
	case "Bind":
		add("portal %s statement %s", quoteName(m.Portal), quoteName(m.Statement))
		add("params [%s]", strings.Join(m.Params, ", "))
	case "Describe", "Close":
		if m.Target == "statement" {
			add("statement %s", quoteName(m.Statement))
		} else {
			add("portal %s", quoteName(m.Portal))
		}
	case "Execute":
		add("portal %s", quoteName(m.Portal))
	case "FunctionCall":
		add("args [%s]", strings.Join(m.Params, ", "))
	case "RowDescription":
		cols := make([]string, len(m.Columns))
		for i, c := range m.Columns {
			cols[i] = c.Name + " " + typeName(c.TypeOID)
			if c.Format == 1 {
				cols[i] += " (binary)"
			}
		}
		add("%s: %s", plural(len(m.Columns), "column"), strings.Join(cols, ", "))
	case "DataRow":
		add("%s, %s", plural(m.Count, "row"), plural(m.Length, "byte"))
	case "CopyData":
		add("%s, %s", plural(m.Count, "message"), plural(m.Length, "byte"))
	case "CommandComplete":
		add("%s", m.Tag)
	case "ErrorResponse", "NoticeResponse":
		add("%s %s %s", m.Severity, m.SQLState, oneLine(m.Text))
	case "CopyFail":
		add("%s", oneLine(m.Text))
	case "ReadyForQuery":
		switch m.Status {
		case "I":
			add("I (idle)")
		case "T":
			add("T (in a transaction)")
		case "E":
			add("E (in a failed transaction)")
		default:
			add("%s", m.Status)
		}
	}
	if m.Detail != "" {
		add("%s", oneLine(m.Detail))
	}
	return strings.Join(parts, "  ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// oneLine folds whitespace so a message stays on its line.
func oneLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f' || r < 0x20 || r == 0x7f
	}), " ")
}

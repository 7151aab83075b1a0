package capture

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"
)

// clientRecord decodes one client write. A release unit is exactly one
// write; so are the start-up packet, COPY data and Terminate.
func (st *streamTracer) clientRecord(r Record) {
	at := micros(r.At)
	if st.client == clientStartup {
		st.add(-1, st.startupPacket(r.Data, at))
		return
	}
	unit := st.matchUnit(r.Data)
	if room := st.room(); room >= 0 && countClient(r.Data) > room {
		// Over the trace's budget: decoding would allocate every
		// message of the write first.
		st.budget.left = -1
		return
	}
	msgs := decodeClient(r.Data, at)
	if st.stmts == nil {
		st.stmts = NewStatements()
	}
	if sql := st.stmts.Unit(r.Data).SQL; unit == nil {
		unit = st.matchMasked(r.Data, sql)
	}
	if unit == nil && st.cur >= 0 && st.t.Exchanges[st.cur].Unit != nil && copyOnly(msgs) {
		// COPY data belongs to the unit that started the COPY.
		for _, m := range msgs {
			st.add(st.cur, m)
		}
		return
	}
	st.openExchange(unit, at, msgs)
}

// openExchange files one client write as a new exchange, owed a
// ReadyForQuery for each Query, Sync and FunctionCall it holds. Server
// bytes of a message still arriving keep framing across the write: a
// driver may send Terminate while a cancelled unit answers.
func (st *streamTracer) openExchange(unit *UnitInfo, at int64, msgs []Message) {
	if st.budget != nil { // an exchange costs about what a message does
		if st.budget.left--; st.budget.spent() {
			return
		}
	}
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

// startupPacket decodes the untyped packet that opens a stream.
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
	var err error
	switch code := binary.BigEndian.Uint32(body); code {
	case codeSSLRequest, codeGSSENCRequest:
		err = st.encryptionRequest(&m, code, body)
	case codeCancelRequest:
		err = st.cancelRequest(&m, body)
	case pgproto3.ProtocolVersion30, pgproto3.ProtocolVersion32:
		err = st.startupMessage(&m, body)
	default:
		return undecodable(fromClient, at, len(b), fmt.Sprintf("a start-up packet with the unknown code %d", code))
	}
	if err != nil {
		return undecodable(fromClient, at, len(b), err.Error())
	}
	return m
}

// encryptionRequest decodes an SSLRequest or GSSENCRequest; the server
// stream owes it a one-byte answer.
func (st *streamTracer) encryptionRequest(m *Message, code uint32, body []byte) error {
	var req pgproto3.FrontendMessage = &pgproto3.SSLRequest{}
	m.Type, m.Detail = "SSLRequest", "the proxy answers N: no TLS between the client and the proxy"
	if code == codeGSSENCRequest {
		req, m.Type, m.Detail = &pgproto3.GSSEncRequest{}, "GSSENCRequest", "the proxy answers N: no GSS encryption"
	}
	if err := safeDecode(req, body); err != nil {
		return err
	}
	st.sslPending++
	return nil
}

func (st *streamTracer) cancelRequest(m *Message, body []byte) error {
	var c pgproto3.CancelRequest
	if err := safeDecode(&c, body); err != nil {
		return err
	}
	st.client = clientTyped
	if st.t.Kind == "unattached" {
		st.t.Kind = "cancel"
	}
	m.Type, m.Detail = "CancelRequest", fmt.Sprintf("backend pid %d", c.ProcessID)
	return nil
}

// startupMessage decodes a StartupMessage: its protocol version and its
// parameters by name, a password among them redacted.
func (st *streamTracer) startupMessage(m *Message, body []byte) error {
	var s pgproto3.StartupMessage
	if err := safeDecode(&s, body); err != nil {
		return err
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
	return nil
}

// decodeClient decodes the typed messages of one client write, into a
// slice of their exact number (a caller with a budget checks countClient
// first).
func decodeClient(b []byte, at int64) []Message {
	out := make([]Message, 0, countClient(b))
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

// countClient is how many messages decodeClient makes of b (an
// undecodable rest counts as one), walking the length fields only.
func countClient(b []byte) int {
	count := 0
	for len(b) > 0 {
		count++
		if len(b) < 5 {
			break
		}
		n := int64(binary.BigEndian.Uint32(b[1:5]))
		if n < 4 || 1+n > int64(len(b)) {
			break
		}
		b = b[1+n:]
	}
	return count
}

// clientMessage decodes one typed client message of a write made at at.
func clientMessage(typ byte, body []byte, at int64) Message {
	m := Message{AtUS: at, From: fromClient, Length: 5 + len(body)}
	var err error
	switch typ {
	case 'Q':
		err = clientQuery(&m, body)
	case 'P':
		err = clientParse(&m, body)
	case 'B':
		err = clientBind(&m, body)
	case 'D', 'C':
		err = clientDescribeOrClose(&m, typ, body)
	case 'E':
		err = clientExecute(&m, body)
	case 'F':
		err = clientFunctionCall(&m, body)
	case 'f':
		err = clientCopyFail(&m, body)
	case 'S':
		m.Type = "Sync"
	case 'H':
		m.Type = "Flush"
	case 'X':
		m.Type = "Terminate"
	case 'd':
		m.Type, m.Count = "CopyData", 1
	case 'c':
		m.Type = "CopyDone"
	case 'p':
		// After start-up the proxy refuses password messages; one that is
		// here was recorded before authentication completed and is never
		// shown.
		m.Type, m.Redacted, m.Detail = "PasswordMessage", true, fmt.Sprintf("[redacted: %d bytes]", m.Length)
	default:
		return undecodable(fromClient, at, m.Length, "unknown client message type "+typeByte(typ))
	}
	if err != nil {
		return decodeFailed(fromClient, at, m.Length, typ, err)
	}
	return m
}

// The client* decoders below fill m from one message body; on an error m
// is dropped for an undecodable message.

func clientQuery(m *Message, body []byte) error {
	var q pgproto3.Query
	if err := safeDecode(&q, body); err != nil {
		return err
	}
	m.Type, m.SQL = "Query", q.String
	return nil
}

func clientParse(m *Message, body []byte) error {
	var p pgproto3.Parse
	if err := safeDecode(&p, body); err != nil {
		return err
	}
	m.Type, m.SQL, m.Statement = "Parse", p.Query, strPtr(p.Name)
	if len(p.ParameterOIDs) > 0 {
		m.Detail = parameterTypes(p.ParameterOIDs)
		m.ParamTypes = p.ParameterOIDs
	}
	return nil
}

func clientBind(m *Message, body []byte) error {
	var b pgproto3.Bind
	if err := safeDecode(&b, body); err != nil {
		return err
	}
	m.Type, m.Statement, m.Portal = "Bind", strPtr(b.PreparedStatement), strPtr(b.DestinationPortal)
	m.Params = DecodeParams(b.Parameters, b.ParameterFormatCodes)
	if len(b.ResultFormatCodes) > 0 {
		m.Detail = "result formats " + formatCodes(b.ResultFormatCodes)
	}
	return nil
}

// clientDescribeOrClose decodes a Describe ('D') or a Close ('C'): each
// names a statement or a portal, with the same fields.
func clientDescribeOrClose(m *Message, typ byte, body []byte) error {
	var d pgproto3.Describe
	var err error
	if typ == 'D' {
		m.Type, err = "Describe", safeDecode(&d, body)
	} else {
		var c pgproto3.Close
		m.Type, err = "Close", safeDecode(&c, body)
		d = pgproto3.Describe(c)
	}
	if err != nil {
		return err
	}
	if d.ObjectType == 'S' {
		m.Target, m.Statement = "statement", strPtr(d.Name)
	} else {
		m.Target, m.Portal = "portal", strPtr(d.Name)
	}
	return nil
}

func clientExecute(m *Message, body []byte) error {
	var e pgproto3.Execute
	if err := safeDecode(&e, body); err != nil {
		return err
	}
	m.Type, m.Portal = "Execute", strPtr(e.Portal)
	if e.MaxRows > 0 {
		m.Detail = fmt.Sprintf("at most %d rows", e.MaxRows)
	}
	return nil
}

func clientFunctionCall(m *Message, body []byte) error {
	var f pgproto3.FunctionCall
	if err := safeDecode(&f, body); err != nil {
		return err
	}
	m.Type, m.Params = "FunctionCall", DecodeParams(f.Arguments, f.ArgFormatCodes)
	m.Detail = fmt.Sprintf("function oid %d", f.Function)
	return nil
}

func clientCopyFail(m *Message, body []byte) error {
	var f pgproto3.CopyFail
	if err := safeDecode(&f, body); err != nil {
		return err
	}
	m.Type, m.Text = "CopyFail", f.Message
	return nil
}

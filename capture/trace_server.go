package capture

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"
)

// serverBytes appends one chunk of server bytes and decodes every message it
// completes.
func (st *streamTracer) serverBytes(r Record) {
	if st.broken {
		st.add(st.cur, undecodable(fromServer, micros(r.At), len(r.Data), "after a message that does not frame"))
		return
	}
	st.segs = append(st.segs, seg{off: st.base + int64(len(st.buf)), at: r.At, ex: st.cur, rec: st.rec})
	st.buf = append(st.buf, r.Data...)
	if room := st.room(); room >= 0 && st.sslPending == 0 && countServer(st.buf, room+1) > room {
		// Over the trace's budget: refuse before decoding any of it.
		st.budget.left = -1
		return
	}
	st.decodeServer()
}

// countServer is how many whole messages b begins with, counting up to
// stop, walking the length fields only.
func countServer(b []byte, stop int) int {
	count := 0
	for count < stop && len(b) >= 5 {
		n := int64(binary.BigEndian.Uint32(b[1:5]))
		if n < 4 || 1+n > int64(len(b)) {
			break
		}
		b = b[1+n:]
		count++
	}
	return count
}

// maxServerMessage bounds a server message's declared length; PostgreSQL
// sends at most 1 GiB per message.
const maxServerMessage = 1 << 30

func (st *streamTracer) decodeServer() {
	for len(st.buf) > 0 && !st.budget.spent() {
		if st.sslPending > 0 {
			st.sslPending--
			st.emit(1, sslResponse(st.buf[0]))
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

// sslResponse is the one-byte answer to an SSLRequest or GSSENCRequest.
func sslResponse(b byte) Message {
	m := Message{From: fromServer, Length: 1, Type: "SSLResponse"}
	switch b {
	case 'N':
		m.Detail = "N: not supported"
	case 'S':
		m.Detail = "S: TLS follows"
	default:
		m.Detail = "unexpected answer " + typeByte(b)
	}
	return m
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

// typeOnlyServer names the server messages shown by their type alone.
var typeOnlyServer = map[byte]string{
	'1': "ParseComplete", '2': "BindComplete", '3': "CloseComplete", 'n': "NoData",
	'I': "EmptyQueryResponse", 's': "PortalSuspended", 'c': "CopyDone",
}

// serverMessage decodes one server message; emit times it and files it.
func (st *streamTracer) serverMessage(typ byte, body []byte) Message {
	m := Message{From: fromServer, Length: 5 + len(body)}
	var err error
	switch typ {
	case 'R':
		return st.authMessage(body)
	case 'd':
		m.Type, m.Count = "CopyData", 1
	case 'D':
		err = serverDataRow(&m, body)
	case 'T':
		err = serverRowDescription(&m, body)
	case 't':
		err = serverParameterDescription(&m, body)
	case 'C':
		err = serverCommandComplete(&m, body)
	case 'E', 'N':
		err = serverErrorOrNotice(&m, typ, body)
	case 'Z':
		err = serverReadyForQuery(&m, body)
	case 'G', 'H', 'W':
		err = serverCopyResponse(&m, typ, body)
	case 'S':
		err = serverParameterStatus(&m, body)
	case 'K':
		err = serverBackendKeyData(&m, body)
	case 'A':
		err = serverNotification(&m, body)
	case 'V':
		err = serverFunctionCallResponse(&m, body)
	case 'v':
		err = serverNegotiateProtocolVersion(&m, body)
	default:
		name, ok := typeOnlyServer[typ]
		if !ok {
			return undecodable(fromServer, 0, m.Length, "unknown server message type "+typeByte(typ))
		}
		m.Type = name
	}
	if err != nil {
		return decodeFailed(fromServer, 0, m.Length, typ, err)
	}
	return m
}

// The server* decoders fill m from one server message body; on an error m
// is dropped for an undecodable message.

func serverDataRow(m *Message, body []byte) error {
	var d pgproto3.DataRow
	if err := safeDecode(&d, body); err != nil {
		return err
	}
	m.Type, m.Count = "DataRow", 1
	return nil
}

func serverRowDescription(m *Message, body []byte) error {
	var rd pgproto3.RowDescription
	if err := safeDecode(&rd, body); err != nil {
		return err
	}
	m.Type, m.Columns = "RowDescription", make([]Column, len(rd.Fields))
	for i, f := range rd.Fields {
		m.Columns[i] = Column{Name: string(f.Name), TypeOID: f.DataTypeOID, Format: f.Format}
	}
	return nil
}

func serverParameterDescription(m *Message, body []byte) error {
	var pd pgproto3.ParameterDescription
	if err := safeDecode(&pd, body); err != nil {
		return err
	}
	m.Type, m.Detail = "ParameterDescription", parameterTypes(pd.ParameterOIDs)
	return nil
}

func serverCommandComplete(m *Message, body []byte) error {
	var c pgproto3.CommandComplete
	if err := safeDecode(&c, body); err != nil {
		return err
	}
	m.Type, m.Tag = "CommandComplete", string(c.CommandTag)
	return nil
}

// serverErrorOrNotice decodes an ErrorResponse ('E') or a NoticeResponse
// ('N'): pgproto3 gives both the same fields.
func serverErrorOrNotice(m *Message, typ byte, body []byte) error {
	var e pgproto3.ErrorResponse
	var err error
	if typ == 'N' {
		var n pgproto3.NoticeResponse
		m.Type, err = "NoticeResponse", safeDecode(&n, body)
		e = pgproto3.ErrorResponse(n)
	} else {
		m.Type, err = "ErrorResponse", safeDecode(&e, body)
	}
	if err != nil {
		return err
	}
	m.Severity, m.SQLState, m.Text = e.Severity, e.Code, e.Message
	if e.Detail != "" {
		m.Detail = "detail: " + e.Detail
	}
	return nil
}

func serverReadyForQuery(m *Message, body []byte) error {
	var z pgproto3.ReadyForQuery
	if err := safeDecode(&z, body); err != nil {
		return err
	}
	m.Type, m.Status = "ReadyForQuery", string(rune(z.TxStatus))
	if z.TxStatus < 0x20 || z.TxStatus > 0x7e {
		m.Status = fmt.Sprintf("0x%02x", z.TxStatus)
	}
	return nil
}

// serverCopyResponse decodes a CopyInResponse ('G'), CopyOutResponse ('H')
// or CopyBothResponse ('W'): pgproto3 gives all three the same fields.
func serverCopyResponse(m *Message, typ byte, body []byte) error {
	var c pgproto3.CopyInResponse
	var err error
	switch typ {
	case 'G':
		m.Type, err = "CopyInResponse", safeDecode(&c, body)
	case 'H':
		var o pgproto3.CopyOutResponse
		m.Type, err = "CopyOutResponse", safeDecode(&o, body)
		c = pgproto3.CopyInResponse(o)
	default:
		var b pgproto3.CopyBothResponse
		m.Type, err = "CopyBothResponse", safeDecode(&b, body)
		c = pgproto3.CopyInResponse(b)
	}
	if err != nil {
		return err
	}
	format := "text"
	if c.OverallFormat == 1 {
		format = "binary"
	}
	m.Detail = fmt.Sprintf("%s format, %d columns", format, len(c.ColumnFormatCodes))
	return nil
}

func serverParameterStatus(m *Message, body []byte) error {
	var p pgproto3.ParameterStatus
	if err := safeDecode(&p, body); err != nil {
		return err
	}
	m.Type, m.Detail = "ParameterStatus", p.Name+"="+p.Value
	return nil
}

func serverBackendKeyData(m *Message, body []byte) error {
	var k pgproto3.BackendKeyData
	if err := safeDecode(&k, body); err != nil {
		return err
	}
	m.Type, m.Detail = "BackendKeyData", fmt.Sprintf("backend pid %d", k.ProcessID)
	return nil
}

func serverNotification(m *Message, body []byte) error {
	var a pgproto3.NotificationResponse
	if err := safeDecode(&a, body); err != nil {
		return err
	}
	m.Type = "NotificationResponse"
	m.Detail = fmt.Sprintf("pid %d channel %s payload %s", a.PID, strconv.Quote(a.Channel), strconv.Quote(a.Payload))
	return nil
}

func serverFunctionCallResponse(m *Message, body []byte) error {
	var f pgproto3.FunctionCallResponse
	if err := safeDecode(&f, body); err != nil {
		return err
	}
	m.Type, m.Detail = "FunctionCallResponse", "result "+decodeParam(f.Result, true).String()
	return nil
}

func serverNegotiateProtocolVersion(m *Message, body []byte) error {
	var v pgproto3.NegotiateProtocolVersion
	if err := safeDecode(&v, body); err != nil {
		return err
	}
	m.Type = "NegotiateProtocolVersion"
	m.Detail = fmt.Sprintf("newest minor version %d; unrecognized options %s", v.NewestMinorProtocol, strings.Join(v.UnrecognizedOptions, ", "))
	return nil
}

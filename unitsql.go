package interleave

import (
	"encoding/binary"
	"strconv"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/pginterleave/interleave/sched"
)

// statementTexts decodes, for the record, the SQL each unit runs. A Bind that
// names a statement prepared in an earlier unit of the same connection gets
// that statement's text. It never runs on the proxy's hot path.
type statementTexts struct {
	named   map[[2]int]map[string]string // (actor, conn) -> statement name -> SQL
	unnamed map[[2]int]string            // (actor, conn) -> the unnamed statement's SQL
}

func newStatementTexts() *statementTexts {
	return &statementTexts{named: map[[2]int]map[string]string{}, unnamed: map[[2]int]string{}}
}

// decode returns the SQL texts and bind parameters of u. Units must be fed in
// their connection's order.
func (st *statementTexts) decode(u *sched.UnitRecord) (sqls []string, params [][]string) {
	k := [2]int{u.Ref.Actor, u.Ref.Conn}
	names := st.named[k]
	if names == nil {
		names = map[string]string{}
		st.named[k] = names
	}
	// The unnamed statement lives on the connection until the next unnamed
	// Parse or simple Query: drivers (lib/pq) parse it in one unit and bind
	// and execute it in the next.
	unnamed := st.unnamed[k]
	defer func() { st.unnamed[k] = unnamed }()
	forEachMessage(u.Bytes, func(typ byte, body []byte) {
		switch typ {
		case 'Q':
			var m pgproto3.Query
			if m.Decode(body) == nil {
				sqls = append(sqls, m.String)
			}
			unnamed = ""
		case 'P':
			var m pgproto3.Parse
			if m.Decode(body) == nil {
				if m.Name == "" {
					unnamed = m.Query
				} else {
					names[m.Name] = m.Query
				}
				sqls = appendUnique(sqls, m.Query)
			}
		case 'B':
			var m pgproto3.Bind
			if m.Decode(body) == nil {
				q := unnamed
				if m.PreparedStatement != "" {
					q = names[m.PreparedStatement]
				}
				if q != "" {
					sqls = appendUnique(sqls, q)
				}
				params = append(params, renderParams(&m))
			}
		case 'F':
			var m pgproto3.FunctionCall
			if m.Decode(body) == nil {
				sqls = append(sqls, "-- function call oid "+strconv.FormatUint(uint64(m.Function), 10))
			}
		}
	})
	return sqls, params
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// renderParams shows bind values: text-format values as text, binary ones as
// hex, NULL as NULL.
func renderParams(b *pgproto3.Bind) []string {
	out := make([]string, len(b.Parameters))
	for i, p := range b.Parameters {
		binaryFmt := false
		switch len(b.ParameterFormatCodes) {
		case 0:
		case 1:
			binaryFmt = b.ParameterFormatCodes[0] == 1
		default:
			if i < len(b.ParameterFormatCodes) {
				binaryFmt = b.ParameterFormatCodes[i] == 1
			}
		}
		switch {
		case p == nil:
			out[i] = "NULL"
		case !binaryFmt && utf8.Valid(p):
			out[i] = string(p)
		case len(p) == 4:
			out[i] = "\\x" + hexString(p) + " (binary; as int4 " + strconv.Itoa(int(int32(binary.BigEndian.Uint32(p)))) + ")"
		case len(p) == 8:
			out[i] = "\\x" + hexString(p) + " (binary; as int8 " + strconv.FormatInt(int64(binary.BigEndian.Uint64(p)), 10) + ")"
		default:
			out[i] = "\\x" + hexString(p) + " (binary)"
		}
	}
	return out
}

func hexString(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 2*len(b))
	for i, c := range b {
		out[2*i], out[2*i+1] = digits[c>>4], digits[c&15]
	}
	return string(out)
}

// forEachMessage walks typed messages in b (which the proxy framed).
func forEachMessage(b []byte, f func(typ byte, body []byte)) {
	for len(b) >= 5 {
		n := int(binary.BigEndian.Uint32(b[1:5]))
		if n < 4 || 1+n > len(b) {
			return
		}
		f(b[0], b[5:1+n])
		b = b[1+n:]
	}
}

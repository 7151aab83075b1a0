package capture

import "github.com/pginterleave/interleave/artifact"

// Statements follows, for the record, the statements one connection's
// units prepare and run: a Bind that names a statement prepared in an
// earlier unit gets that statement's text. It uses the same message decoder
// as the trace and never runs on the proxy's hot path. Feed it a
// connection's units in order; it is not safe for concurrent use.
type Statements struct {
	named   map[string]string // statement name -> SQL
	unnamed string            // the unnamed statement's SQL
	portals map[string]string // portal name -> SQL of its statement
}

// NewStatements starts following a connection.
func NewStatements() *Statements {
	return &Statements{named: map[string]string{}, portals: map[string]string{}}
}

// Unit is what one release unit prepares and runs.
type Unit struct {
	// SQL lists the texts the unit names (queries, statements parsed or
	// bound), each once, in order.
	SQL []string
	// Executed lists the texts the unit runs, once per Query or Execute: a
	// simple Query's string (which may hold several statements), or the
	// statement behind an executed portal. A function call is "" here.
	Executed []string
	// Params holds each Bind's parameters, in order.
	Params [][]artifact.Param
	// FunctionCall reports a FunctionCall message (it runs a function by oid).
	FunctionCall bool
}

// Unit decodes the client bytes b of the connection's next unit (framed
// messages, as the proxy released them). Messages that do not decode are
// skipped: the trace shows them.
func (st *Statements) Unit(b []byte) Unit {
	var u Unit
	for _, m := range decodeClient(b, 0) {
		switch m.Type {
		case "Query":
			u.SQL = appendUnique(u.SQL, m.SQL)
			u.Executed = append(u.Executed, m.SQL)
			// The unnamed statement and portal live until the next simple
			// Query or unnamed Parse: lib/pq parses in one unit and binds
			// and executes in the next.
			st.unnamed = ""
			delete(st.portals, "")
		case "Parse":
			if *m.Statement == "" {
				st.unnamed = m.SQL
			} else {
				st.named[*m.Statement] = m.SQL
			}
			u.SQL = appendUnique(u.SQL, m.SQL)
		case "Bind":
			q := st.unnamed
			if *m.Statement != "" {
				q = st.named[*m.Statement]
			}
			st.portals[*m.Portal] = q
			if q != "" {
				u.SQL = appendUnique(u.SQL, q)
			}
			u.Params = append(u.Params, m.Params)
		case "Execute":
			u.Executed = append(u.Executed, st.portals[*m.Portal])
		case "Close":
			if m.Target == "statement" {
				delete(st.named, *m.Statement)
			} else {
				delete(st.portals, *m.Portal)
			}
		case "FunctionCall":
			u.FunctionCall = true
			u.SQL = append(u.SQL, "-- "+m.Detail)
			u.Executed = append(u.Executed, "")
		}
	}
	return u
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

package capture

import (
	"regexp"

	"github.com/pginterleave/interleave/artifact"
)

// Statements follows, for the record, the statements one connection's
// units prepare and run: a Bind that names a statement prepared in an
// earlier unit gets that statement's text. It uses the same message decoder
// as the trace and never runs on the proxy's hot path. Feed it a
// connection's units in order; it is not safe for concurrent use.
type Statements struct {
	named   map[string]string // statement name -> SQL ("" unknown)
	unnamed string            // the unnamed statement's SQL
	portals map[string]portal // portal name -> what it runs
	types   map[string][]uint32
}

// portal is what a Bind made: its statement's text, its parameters, and
// whether the statement declared only unspecified or integer types.
type portal struct {
	sql    string
	params []artifact.Param
	intish bool
}

// NewStatements starts following a connection.
func NewStatements() *Statements {
	return &Statements{named: map[string]string{}, portals: map[string]portal{}, types: map[string][]uint32{}}
}

// Unit is what one release unit prepares and runs.
type Unit struct {
	// SQL lists the texts the unit names (queries, statements parsed or
	// bound), each once, in order.
	SQL []string
	// Executed lists the texts the unit runs, once per Query or Execute: a
	// simple Query's string (which may hold several statements), or the
	// statement behind an executed portal ("" when not known). A function
	// call is "" here.
	Executed []string
	// ExecParams holds, per Executed, the parameters of the Bind that made
	// the executed portal (nil for a Query), and ExecIntTypes whether that
	// portal's statement declared only unspecified or integer parameter
	// types (a row key may be read from them).
	ExecParams   [][]artifact.Param
	ExecIntTypes []bool
	// Params holds each Bind's parameters, in order.
	Params [][]artifact.Param
	// Parsed lists the texts the unit parsed; Binds and Executes count
	// its Bind and Execute messages.
	Parsed          []string
	Binds, Executes int
	// FunctionCall reports a FunctionCall message (it runs a function by oid).
	FunctionCall bool
	// Partial reports an Execute with a row limit, which may leave its
	// portal suspended, holding its snapshot until the portal closes.
	Partial bool
}

// Unit decodes the client bytes b of the connection's next unit (framed
// messages, as the proxy released them). Messages that do not decode are
// skipped: the trace shows them.
func (st *Statements) Unit(b []byte) Unit { return st.UnitAfter(b, false) }

// UnitAfter is Unit for a unit whose outcome is known: failed, the server
// may have refused any of its Parse, Bind and Close messages (a Parse of a
// name that exists, or any message after the error, which the server
// skips until the Sync), so every statement and portal the unit named is
// no longer known, and an Execute of one later runs "".
func (st *Statements) UnitAfter(b []byte, failed bool) Unit {
	var u Unit
	var namedHere, portalsHere []string
	for _, m := range decodeClient(b, 0) {
		switch m.Type {
		case "Query":
			u.SQL = appendUnique(u.SQL, m.SQL)
			u.Executed = append(u.Executed, m.SQL)
			u.ExecParams, u.ExecIntTypes = append(u.ExecParams, nil), append(u.ExecIntTypes, false)
			// The unnamed statement and portal live until the next simple
			// Query or unnamed Parse: lib/pq parses in one unit and binds
			// and executes in the next.
			st.unnamed = ""
			delete(st.portals, "")
			st.sqlPrepare(m.SQL)
		case "Parse":
			if *m.Statement == "" {
				st.unnamed = m.SQL
			} else {
				st.named[*m.Statement] = m.SQL
				namedHere = append(namedHere, *m.Statement)
			}
			st.types[*m.Statement] = m.ParamTypes
			u.SQL = appendUnique(u.SQL, m.SQL)
			u.Parsed = append(u.Parsed, m.SQL)
		case "Bind":
			u.Binds++
			q := st.unnamed
			if *m.Statement != "" {
				q = st.named[*m.Statement]
			}
			st.portals[*m.Portal] = portal{sql: q, params: m.Params, intish: intTypes(st.types[*m.Statement])}
			portalsHere = append(portalsHere, *m.Portal)
			if q != "" {
				u.SQL = appendUnique(u.SQL, q)
			}
			u.Params = append(u.Params, m.Params)
		case "Execute":
			u.Executes++
			u.Partial = u.Partial || m.Detail != ""
			p := st.portals[*m.Portal]
			u.Executed = append(u.Executed, p.sql)
			u.ExecParams, u.ExecIntTypes = append(u.ExecParams, p.params), append(u.ExecIntTypes, p.intish)
			st.sqlPrepare(p.sql)
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
			u.ExecParams, u.ExecIntTypes = append(u.ExecParams, nil), append(u.ExecIntTypes, false)
		}
	}
	if failed {
		for _, n := range namedHere {
			st.named[n] = ""
		}
		for _, p := range portalsHere {
			st.portals[p] = portal{}
		}
	}
	return u
}

// sqlPrepare: SQL's PREPARE, DEALLOCATE and DISCARD change the names the
// protocol's statements live under; after one, no name is known. The
// words are looked for anywhere in the text, so that a comment before
// them (sqlcommenter's tags: case sess-sql-reprepare-commented) or a
// string holding them only costs names.
func (st *Statements) sqlPrepare(sql string) {
	if sqlNameWord.MatchString(sql) {
		for k := range st.named {
			st.named[k] = ""
		}
	}
}

var sqlNameWord = regexp.MustCompile(`(?i)(?:^|[^a-z0-9_$])(?:prepare|deallocate|discard)(?:$|[^a-z0-9_$])`)

// intTypes: declared parameter types that are unspecified (0) or integers
// (int8, int2, int4).
func intTypes(oids []uint32) bool {
	for _, o := range oids {
		if o != 0 && o != 20 && o != 21 && o != 23 {
			return false
		}
	}
	return true
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

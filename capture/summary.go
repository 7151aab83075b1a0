package capture

import (
	"fmt"
	"sort"
	"strings"
)

// ConnSummary is what one connection did, read off its trace.
type ConnSummary struct {
	Stream int    `json:"stream"`
	Conn   int    `json:"conn"` // -1: start-up did not complete
	Kind   string `json:"kind"`
	// Startup is the start-up message's parameters (user, database,
	// application_name, ...), as the trace shows them.
	Startup string `json:"startup,omitempty"`
	// Statements counts statements sent: each Query message and each
	// Execute. StatementKinds counts them by their SQL's first keyword
	// (an Execute by the statement its portal was bound to).
	Statements     int            `json:"statements"`
	StatementKinds map[string]int `json:"statementKinds,omitempty"`
	// RoundTrips counts client writes the server answered: the times the
	// client waited for PostgreSQL.
	RoundTrips int `json:"roundTrips"`
	// Protocol lists the paths used: "simple" (Query), "extended" (Parse,
	// Bind, Execute), "pipeline" (several Sync cycles or Executes in one
	// write, or a write before the previous cycle's answer ended),
	// "function" (FunctionCall), "copy".
	Protocol []string `json:"protocol"`
	Errors   int      `json:"errors"` // ErrorResponse messages
	// ServerUS is the time some client write was waiting for the end of
	// the server's answer; ClientUS the rest of the session, from the end of
	// start-up to the close: time spent in the application (and its
	// network) between commands.
	ServerUS int64 `json:"serverUs"`
	ClientUS int64 `json:"clientUs"`
}

// Summarize reads one ConnSummary per stream off a trace.
func Summarize(tr *TraceResult) []ConnSummary {
	out := make([]ConnSummary, 0, len(tr.Streams))
	for i := range tr.Streams {
		out = append(out, summarizeStream(&tr.Streams[i]))
	}
	return out
}

func summarizeStream(s *StreamTrace) ConnSummary {
	cs := ConnSummary{Stream: s.Stream, Conn: s.Conn, Kind: s.Kind, StatementKinds: map[string]int{}, Protocol: []string{}}
	begin, end := s.StartUS, s.StartUS
	attached := false
	for _, m := range s.Startup {
		if m.Type == "StartupMessage" {
			cs.Startup = m.Detail
		}
		end = max(end, m.AtUS, m.LastUS)
		if m.Type == "ReadyForQuery" {
			begin, attached = max(m.AtUS, m.LastUS), true
		}
	}
	stmts := map[string]string{}   // prepared statement name -> SQL
	portals := map[string]string{} // portal name -> SQL
	used := map[string]bool{}
	var busyUntil, prevAnswerEnd int64
	terminated := false
	for _, e := range s.Exchanges {
		cycles, execs := 0, 0
		for _, m := range e.Client {
			end = max(end, m.AtUS, m.LastUS)
			switch m.Type {
			case "Query":
				cs.count(m.SQL)
				used["simple"] = true
				cycles++
			case "Parse":
				stmts[deref(m.Statement)] = m.SQL
				used["extended"] = true
			case "Bind":
				sql, ok := stmts[deref(m.Statement)]
				if !ok {
					sql = "\x00" // prepared before the capture began: unknown
				}
				portals[deref(m.Portal)] = sql
				used["extended"] = true
			case "Execute":
				sql, ok := portals[deref(m.Portal)]
				if !ok {
					sql = "\x00"
				}
				cs.count(sql)
				used["extended"] = true
				execs++
			case "Sync":
				cycles++
			case "FunctionCall":
				cs.Statements++
				cs.StatementKinds["FUNCTION CALL"]++
				used["function"] = true
				cycles++
			case "CopyData", "CopyDone", "CopyFail":
				used["copy"] = true
			case "Terminate":
				terminated = true
			}
		}
		for _, m := range e.Server {
			end = max(end, m.AtUS, m.LastUS)
			switch m.Type {
			case "ErrorResponse":
				cs.Errors++
			case "CopyInResponse", "CopyOutResponse":
				used["copy"] = true
			}
		}
		if cycles == 0 || e.LastServerUS == nil {
			continue
		}
		cs.RoundTrips++
		if cycles > 1 || execs > 1 || e.ClientUS < prevAnswerEnd {
			used["pipeline"] = true
		}
		last := *e.LastServerUS
		prevAnswerEnd = last
		// The union of the waiting intervals: pipelined writes overlap.
		from := max(e.ClientUS, busyUntil)
		if last > from {
			cs.ServerUS += last - from
		}
		busyUntil = max(busyUntil, last)
	}
	// A client that said Terminate is done then; the server's end of the
	// socket (the backend's exit) comes later and is no client time.
	if s.Closed != nil && !terminated {
		end = max(end, s.Closed.AtUS)
	}
	if span := end - begin; attached && span > cs.ServerUS {
		cs.ClientUS = span - cs.ServerUS
	}
	for _, p := range []string{"simple", "extended", "pipeline", "function", "copy"} {
		if used[p] {
			cs.Protocol = append(cs.Protocol, p)
		}
	}
	return cs
}

func (cs *ConnSummary) count(sql string) {
	cs.Statements++
	cs.StatementKinds[StatementKind(sql)]++
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// StatementKind is the first keyword of sql, upper-cased ("SELECT",
// "UPDATE"), skipping white space, comments and opening parentheses;
// "EMPTY" for none, "?" for a statement the capture did not define.
func StatementKind(sql string) string {
	s := sql
	for {
		s = strings.TrimLeft(s, " \t\r\n(")
		switch {
		case strings.HasPrefix(s, "--"):
			if i := strings.IndexByte(s, '\n'); i >= 0 {
				s = s[i+1:]
				continue
			}
			s = ""
		case strings.HasPrefix(s, "/*"):
			if i := strings.Index(s, "*/"); i >= 0 {
				s = s[i+2:]
				continue
			}
			s = ""
		}
		break
	}
	i := 0
	for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || s[i] == '_') {
		i++
	}
	if i == 0 {
		if strings.TrimSpace(s) == "" && sql != "" || sql == "" {
			return "EMPTY"
		}
		return "?"
	}
	return strings.ToUpper(s[:i])
}

// writeSummaryTable writes one line per connection.
func writeSummaryTable(ew *errWriter, sums []ConnSummary) {
	ew.printf("connections: %d", len(sums))
	ew.printf("  %-8s %6s %10s %11s %-24s %6s %11s %11s  %s", "conn", "stream", "statements", "round trips", "protocol", "errors", "server ms", "client ms", "statement kinds")
	for _, s := range sums {
		name := s.Kind
		if s.Conn >= 0 {
			name = fmt.Sprintf("#%d", s.Conn)
		}
		ew.printf("  %-8s %6d %10d %11d %-24s %6d %11.1f %11.1f  %s", name, s.Stream, s.Statements, s.RoundTrips,
			strings.Join(s.Protocol, "+"), s.Errors, float64(s.ServerUS)/1000, float64(s.ClientUS)/1000, kindList(s.StatementKinds))
	}
}

func kindList(k map[string]int) string {
	names := make([]string, 0, len(k))
	for n := range k {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if k[names[i]] != k[names[j]] {
			return k[names[i]] > k[names[j]]
		}
		return names[i] < names[j]
	})
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s %d", n, k[n])
	}
	return strings.Join(parts, ", ")
}

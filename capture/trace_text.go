package capture

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/internal/termtext"
)

// WriteText writes the trace for a reader: per stream its start-up, then
// each release unit with the client's messages and the server's answer, one
// line per message with its time in microseconds since the attempt started.
func (t *TraceResult) WriteText(w io.Writer) error {
	tw := &textWriter{errWriter: errWriter{w: w}, unscheduled: t.unscheduled}
	tw.timeWidth, tw.typeWidth = columnWidths(t.Streams)
	for i, s := range t.Streams {
		if i > 0 {
			tw.printf("")
		}
		tw.stream(s)
	}
	if len(t.Missing) > 0 {
		tw.printf("")
		tw.printf("units without a client write in the capture:")
		for _, u := range t.Missing {
			tw.printf("  %s#%d.%d  hash %s: %s", u.Actor, u.Conn, u.Unit, u.Hash, u.Reason)
		}
	}
	return tw.err
}

// columnWidths measures the time and type columns over every message; the
// type column is at most 28 wide.
func columnWidths(streams []StreamTrace) (timeWidth, typeWidth int) {
	measure := func(ms []Message) {
		for _, m := range ms {
			timeWidth = max(timeWidth, len(strconv.FormatInt(m.AtUS, 10)))
			typeWidth = max(typeWidth, utf8.RuneCountInString(typeColumn(m)))
		}
	}
	for _, s := range streams {
		measure(s.Startup)
		for _, e := range s.Exchanges {
			measure(e.Client)
			measure(e.Server)
		}
	}
	return timeWidth, min(typeWidth, 28)
}

type errWriter struct {
	w   io.Writer
	err error
}

// printf writes one line. Everything in it comes from the capture, which
// is untrusted: it is made safe for a terminal as a whole (column names,
// command tags and parameters as much as SQL).
func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintln(e.w, termtext.Line(fmt.Sprintf(format, args...)))
	}
}

// textWriter writes a trace's lines, its columns aligned.
type textWriter struct {
	errWriter
	timeWidth, typeWidth int
	unscheduled          bool
}

func (tw *textWriter) stream(s StreamTrace) {
	head := fmt.Sprintf("%s stream %d", s.Actor, s.Stream)
	if s.Conn >= 0 {
		head = fmt.Sprintf("%s conn #%d (stream %d)", s.Actor, s.Conn, s.Stream)
	}
	tw.printf("%s: %s; tcp port %d in the pcapng", head, s.Kind, s.PCAPPort)
	if len(s.Startup) > 0 {
		tw.printf("  start-up")
		for _, m := range s.Startup {
			tw.message(m)
		}
	}
	for _, e := range s.Exchanges {
		h := e.header()
		if tw.unscheduled {
			h = strings.Replace(h, "client write outside any release unit", "client write", 1)
		}
		tw.printf("  %s", h)
		// Client and server messages in the order their first bytes
		// crossed the proxy (COPY data follows CopyInResponse).
		all := append(append([]Message(nil), e.Client...), e.Server...)
		sortMessages(all)
		for _, m := range all {
			tw.message(m)
		}
	}
	if c := s.Closed; c != nil {
		if c.Reason != "" {
			tw.printf("  closed at %dµs: %s", c.AtUS, oneLine(c.Reason))
		} else {
			tw.printf("  closed at %dµs", c.AtUS)
		}
	}
}

func (tw *textWriter) message(m Message) {
	arrow := "→"
	if m.From == fromServer {
		arrow = "←"
	}
	d := m.details()
	if m.LastUS > m.AtUS {
		d = strings.TrimSpace(d + fmt.Sprintf(" (until %dµs)", m.LastUS))
	}
	line := fmt.Sprintf("    %*dµs %s %-*s %s", tw.timeWidth, m.AtUS, arrow, tw.typeWidth, typeColumn(m), d)
	tw.printf("%s", strings.TrimRight(line, " "))
}

func (e Exchange) header() string {
	var b strings.Builder
	if u := e.Unit; u != nil {
		fmt.Fprintf(&b, "unit %s#%d.%d", u.Actor, u.Conn, u.Unit)
		if u.ReleaseStep >= 0 {
			fmt.Fprintf(&b, "  step %d", u.ReleaseStep)
		}
		if u.Fault != "" {
			fmt.Fprintf(&b, "  FAULT %s", u.Fault)
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
	if runs, ok := e.preparedSQL(); ok {
		fmt.Fprintf(&b, "  runs: %s", runs)
	}
	return b.String()
}

// preparedSQL is the unit's SQL when none of its messages names it: the
// unit binds a statement prepared earlier.
func (e Exchange) preparedSQL() (string, bool) {
	u := e.Unit
	if u == nil || len(u.SQL) == 0 {
		return "", false
	}
	for _, m := range e.Client {
		if m.Type == "Query" || m.Type == "Parse" {
			return "", false
		}
	}
	parts := make([]string, len(u.SQL))
	for i, q := range u.SQL {
		parts[i] = oneLine(q)
	}
	return strings.Join(parts, "; "), true
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

// details renders a message's fields after its type, then its detail.
func (m Message) details() string {
	if m.Type == "Parse" {
		// The detail (parameter types) goes before the SQL.
		parts := []string{"statement " + quoteName(m.Statement)}
		if m.Detail != "" {
			parts = append(parts, m.Detail)
		}
		return strings.Join(append(parts, "sql: "+oneLine(m.SQL)), "  ")
	}
	parts := m.fields()
	if m.Detail != "" {
		parts = append(parts, oneLine(m.Detail))
	}
	return strings.Join(parts, "  ")
}

// fields renders the fields of a message type other than Parse.
func (m Message) fields() []string {
	switch m.Type {
	case "Query":
		return []string{"sql: " + oneLine(m.SQL)}
	case "Bind":
		return []string{"portal " + quoteName(m.Portal) + " statement " + quoteName(m.Statement),
			"params [" + paramList(m.Params) + "]"}
	case "Describe", "Close":
		if m.Target == "statement" {
			return []string{"statement " + quoteName(m.Statement)}
		}
		return []string{"portal " + quoteName(m.Portal)}
	case "Execute":
		return []string{"portal " + quoteName(m.Portal)}
	case "FunctionCall":
		return []string{"args [" + paramList(m.Params) + "]"}
	case "RowDescription":
		return []string{m.columns()}
	case "DataRow":
		return []string{plural(m.Count, "row") + ", " + plural(m.Length, "byte")}
	case "CopyData":
		return []string{plural(m.Count, "message") + ", " + plural(m.Length, "byte")}
	case "CommandComplete":
		return []string{m.Tag}
	case "ErrorResponse", "NoticeResponse":
		return []string{m.Severity + " " + m.SQLState + " " + oneLine(m.Text)}
	case "CopyFail":
		return []string{oneLine(m.Text)}
	case "ReadyForQuery":
		return []string{txStatus(m.Status)}
	}
	return nil
}

func (m Message) columns() string {
	cols := make([]string, len(m.Columns))
	for i, c := range m.Columns {
		cols[i] = c.Name + " " + typeName(c.TypeOID)
		if c.Format == 1 {
			cols[i] += " (binary)"
		}
	}
	return plural(len(m.Columns), "column") + ": " + strings.Join(cols, ", ")
}

func txStatus(s string) string {
	switch s {
	case "I":
		return "I (idle)"
	case "T":
		return "T (in a transaction)"
	case "E":
		return "E (in a failed transaction)"
	}
	return s
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

func paramList(ps []artifact.Param) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	return strings.Join(s, ", ")
}

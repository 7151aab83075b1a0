package scenario

import (
	"fmt"
	"strings"
)

// writeResultSet prints a result as the isolation tester does (libpq's
// PQprint with align, header and fieldSep "|"): every column as wide as
// its longest name or value in bytes, numbers right-aligned and text
// left-aligned (a column is text when any non-empty value is not a
// number), a border of dashes joined by '+', then "(N rows)" and a blank
// line. Empty strings and NULLs print as nothing.
func writeResultSet(b *strings.Builder, rs ResultSet) {
	n := len(rs.Columns)
	if n == 0 {
		return // PQprint prints nothing for a result without columns
	}
	width := make([]int, n)
	text := make([]bool, n)
	for j, c := range rs.Columns {
		width[j] = len(c)
	}
	for _, row := range rs.Rows {
		for j := 0; j < n && j < len(row); j++ {
			v := row[j]
			if v == nil || *v == "" {
				continue
			}
			if !text[j] && !numeric(*v) {
				text[j] = true
			}
			if len(*v) > width[j] {
				width[j] = len(*v)
			}
		}
	}
	cell := func(j int, s string) {
		if text[j] {
			fmt.Fprintf(b, "%-*s", width[j], s)
		} else {
			fmt.Fprintf(b, "%*s", width[j], s)
		}
		if j+1 < n {
			b.WriteByte('|')
		}
	}
	for j, c := range rs.Columns {
		cell(j, c)
	}
	b.WriteByte('\n')
	for j := range rs.Columns {
		b.WriteString(strings.Repeat("-", width[j]))
		if j+1 < n {
			b.WriteByte('+')
		}
	}
	b.WriteByte('\n')
	for _, row := range rs.Rows {
		for j := 0; j < n; j++ {
			s := ""
			if j < len(row) && row[j] != nil {
				s = *row[j]
			}
			cell(j, s)
		}
		b.WriteByte('\n')
	}
	if len(rs.Rows) == 1 {
		b.WriteString("(1 row)\n\n")
	} else {
		fmt.Fprintf(b, "(%d rows)\n\n", len(rs.Rows))
	}
}

// numeric is PQprint's test: only digits, '.', 'E', 'e', ' ' and '-', not
// starting with E or e, and ending with a digit.
func numeric(s string) bool {
	if s[0] == 'E' || s[0] == 'e' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c == '.' || c == 'E' || c == 'e' || c == ' ' || c == '-') {
			return false
		}
	}
	last := s[len(s)-1]
	return last >= '0' && last <= '9'
}

// writeStepResult prints a block's result sets, then its error line.
func writeStepResult(b *strings.Builder, r StepResult) {
	for _, rs := range r.Results {
		writeResultSet(b, rs)
	}
	if e := r.Error; e != nil {
		fmt.Fprintf(b, "%s:  %s\n", e.Severity, e.Message)
	}
}

// writeNotices prints the notices a session received, prefixed with its
// name.
func writeNotices(b *strings.Builder, session string, r StepResult) {
	for _, n := range r.Notices {
		b.WriteString(session + ": " + n)
	}
}

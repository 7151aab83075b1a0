package cli

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/internal/termtext"
	"github.com/pginterleave/interleave/report"
)

// maxOrderLines bounds the order printed in a summary; the trace and the
// report show the rest.
const maxOrderLines = 40

// OrderStep is one executing command of a recorded attempt, as released:
// what the summary prints under "The order that failed" and --json gives
// as firstFailure.order.
type OrderStep struct {
	// Step is the unit's release step, counted from 0 with statement
	// preparations, as trace, explain (its anomaly, critical pair and
	// transactions) and replay --pause-at count them.
	Step  int    `json:"step"`
	Actor string `json:"actor"`
	// Conn is the actor's connection, for an actor that used several.
	Conn *int   `json:"conn,omitempty"`
	SQL  string `json:"sql"`
	// Note is what happened to it beyond running: lock waits, errors, a
	// pair release.
	Note string `json:"note,omitempty"`
}

// failingOrder lists the executing commands of a recorded attempt in
// release order. Statement preparations are left out: they never carry a
// choice.
func failingOrder(a *artifact.Artifact) []OrderStep {
	if a == nil {
		return nil
	}
	units := map[artifact.UnitRef]*artifact.Unit{}
	multi := map[string]bool{}
	for i := range a.Units {
		u := &a.Units[i]
		units[artifact.UnitRef{Actor: u.Actor, Conn: u.Conn, Unit: u.Unit}] = u
		if u.Conn > 0 {
			multi[u.Actor] = true
		}
	}
	var steps []OrderStep
	for _, d := range a.Schedule.Decisions {
		for _, r := range d.Release {
			u := units[artifact.UnitRef{Actor: r.Actor, Conn: r.Conn, Unit: r.Unit}]
			if u == nil || u.Prepare {
				continue
			}
			st := OrderStep{Step: u.ReleaseStep, Actor: oneLine(u.Actor), SQL: unitText(u), Note: unitNote(u)}
			if multi[u.Actor] {
				conn := u.Conn
				st.Conn = &conn
			}
			steps = append(steps, st)
		}
	}
	return steps
}

// printOrder writes the executing commands of a recorded attempt in release
// order, one line each: the step, the actor (and its connection when it has
// several), the SQL, and what happened to it (lock waits, errors, pairs).
func printOrder(w io.Writer, a *artifact.Artifact, path string) {
	steps := failingOrder(a)
	if len(steps) == 0 {
		return
	}
	who := make([]string, len(steps))
	width := 0
	for i, st := range steps {
		who[i] = st.Actor
		if st.Conn != nil {
			who[i] = fmt.Sprintf("%s#%d", st.Actor, *st.Conn)
		}
		width = max(width, utf8.RuneCountInString(who[i]))
	}
	fmt.Fprintln(w, "The order that failed (executing commands as released, by release step):")
	for i, st := range steps {
		if i == maxOrderLines {
			where := "interleave trace " + report.ShellQuote(path)
			if path == "" {
				where = "save the artifact (--out) and run interleave trace on it"
			}
			fmt.Fprintf(w, "  ... %d more; all of them: %s\n", len(steps)-i, where)
			break
		}
		text := st.SQL
		if st.Note != "" {
			text += "  [" + st.Note + "]"
		}
		fmt.Fprintf(w, "  %3d  %-*s  %s\n", st.Step, width, who[i], text)
	}
}

// unitText is a unit's SQL on one line, shortened, with its first
// parameters.
func unitText(u *artifact.Unit) string {
	if len(u.SQL) == 0 {
		return "(" + u.Protocol + " " + u.Messages + ")"
	}
	text := shorten(oneLine(strings.Join(u.SQL, "; ")), 100)
	if len(u.Params) > 0 && len(u.Params[0]) > 0 {
		ps := make([]string, len(u.Params[0]))
		for i, p := range u.Params[0] {
			ps[i] = fmt.Sprintf("$%d=%s", i+1, oneLine(p.Brief()))
		}
		text += "  -- " + shorten(strings.Join(ps, ", "), 60)
	}
	return text
}

// unitNote says what PostgreSQL did with a unit beyond running it.
func unitNote(u *artifact.Unit) string {
	var notes []string
	if u.Fault != "" {
		notes = append(notes, faultNote(u.Fault))
	}
	if u.Pair {
		notes = append(notes, "released in a pair: PostgreSQL ran the two at once")
	}
	for _, lw := range u.LockWaits {
		if len(lw.BlockingActors) > 0 {
			notes = append(notes, "waited on "+strings.Join(lw.BlockingActors, ", "))
		} else {
			notes = append(notes, "waited on a lock")
		}
		break
	}
	if u.SQLState != "" {
		notes = append(notes, "ERROR "+u.SQLState)
	}
	if !u.Completed {
		notes = append(notes, "did not complete")
	}
	return strings.Join(notes, "; ")
}

// oneLine folds white space and replaces other control characters, so that
// text from the wire cannot break the layout or reach the terminal as escape
// sequences.
func oneLine(s string) string {
	return escapeControls(strings.Join(strings.Fields(s), " "))
}

// escapeControls replaces control characters (escape sequences among them)
// and invalid UTF-8 with '?', so that untrusted text cannot drive the
// terminal.
func escapeControls(s string) string { return termtext.Line(s) }

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - 1
	for cut > 0 && s[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
		cut--
	}
	return s[:cut] + "…"
}

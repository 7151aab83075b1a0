package scenario

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/internal/termtext"
)

// SpecFromArtifact writes a recorded order as a PostgreSQL isolation-tester
// spec: one session per actor connection, one step per executing command
// (bind parameters written into the SQL as literals), and one permutation,
// the recorded release order. The tester itself detects lock waits, so a
// wait needs no marker. setup is the SQL of the setup block: a Go
// scenario's Setup is code, so the caller supplies it (empty: a comment
// says what to put there). Notes says what the spec cannot carry: pairs,
// binary parameters of unknown type, units without SQL.
func SpecFromArtifact(a *artifact.Artifact, setup string) (spec string, notes []string) {
	units := map[[3]any]*artifact.Unit{}
	for i := range a.Units {
		u := &a.Units[i]
		units[[3]any{u.Actor, u.Conn, u.Unit}] = u
	}
	type step struct {
		name, sql string
	}
	sessions := map[[2]any][]step{} // (actor, conn) -> steps in order
	var order [][2]any              // sessions in first-release order
	names := map[[2]any]string{}    // (actor, conn) -> session name, unique
	taken := map[string]bool{}
	var perm []string
	for _, d := range a.Schedule.Decisions {
		for _, r := range d.Release {
			u := units[[3]any{r.Actor, r.Conn, r.Unit}]
			if u == nil || u.Prepare {
				continue
			}
			key := [2]any{u.Actor, u.Conn}
			if _, ok := sessions[key]; !ok {
				order = append(order, key)
				base := sessionName(a, u.Actor, u.Conn)
				name := base
				for i := 2; taken[name]; i++ {
					name = fmt.Sprintf("%s%d", base, i) // two actor names that differ only in punctuation
				}
				names[key], taken[name] = name, true
			}
			name := names[key] + "_" + strconv.Itoa(len(sessions[key])+1)
			sql, n := unitSQLWithLiterals(u)
			notes = append(notes, n...)
			if u.Pair {
				notes = append(notes, fmt.Sprintf("%s was released in a pair, executing at the same time as another command; the tester runs one step at a time", name))
			}
			if safe := termtext.Lines(strings.ReplaceAll(sql, "\r\n", "\n")); safe != strings.ReplaceAll(sql, "\r\n", "\n") {
				// The spec is read on a terminal too: the artifact is untrusted.
				notes = append(notes, fmt.Sprintf("%s holds control characters or invalid UTF-8, written as '?'; take its SQL from the artifact", name))
				sql = safe
			}
			if strings.Contains(sql, "}") {
				notes = append(notes, fmt.Sprintf("%s contains '}', which ends a step block in a spec file; rewrite it", name))
			}
			sessions[key] = append(sessions[key], step{name, sql})
			perm = append(perm, name)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# The order Interleave recorded for scenario %q (%s, outcome %s):\n", a.Scenario.Name, termtext.Line(a.Mode), a.Outcome.Kind)
	if msg := strings.TrimSpace(a.Outcome.Message); msg != "" {
		fmt.Fprintf(&b, "# %s\n", strings.ReplaceAll(termtext.Lines(msg), "\n", "\n# "))
	}
	b.WriteString("# One session per actor connection, one step per command as released.\n\n")
	if strings.TrimSpace(setup) == "" {
		b.WriteString("setup\n{\n  -- the scenario's setup SQL goes here (its Setup is code, not recorded as SQL)\n}\n\n")
		notes = append(notes, "the setup block is empty: put the scenario's setup SQL in it")
	} else {
		fmt.Fprintf(&b, "setup\n{\n%s\n}\n\n", indentBlock(strings.TrimSpace(setup)))
	}
	for _, key := range order {
		fmt.Fprintf(&b, "session %s\n", names[key])
		for _, st := range sessions[key] {
			fmt.Fprintf(&b, "step %s { %s }\n", st.name, st.sql)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "permutation %s\n", strings.Join(perm, " "))
	return b.String(), notes
}

// sessionName is an identifier for an actor's connection: the actor's name
// made an identifier, with the connection number when it has several.
func sessionName(a *artifact.Artifact, actor string, conn int) string {
	name := identifier(actor)
	for _, c := range a.Connections {
		if c.Actor == actor && c.Conn > 0 {
			return fmt.Sprintf("%s_c%d", name, conn)
		}
	}
	return name
}

var notIdent = regexp.MustCompile(`[^A-Za-z0-9_]+`)

func identifier(s string) string {
	s = notIdent.ReplaceAllString(s, "_")
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		s = "a_" + s
	}
	return s
}

var placeholder = regexp.MustCompile(`\$([0-9]+)`)

// unitSQLWithLiterals is a unit's SQL with the first Bind's parameters as
// literals, statements joined by semicolons, on one line.
func unitSQLWithLiterals(u *artifact.Unit) (string, []string) {
	if len(u.SQL) == 0 {
		return fmt.Sprintf("SELECT 'unit %s#%d.%d had no SQL (%s)'", u.Actor, u.Conn, u.Unit, u.Messages),
			[]string{fmt.Sprintf("%s#%d.%d ran no SQL the capture could name; its step is a placeholder", u.Actor, u.Conn, u.Unit)}
	}
	var notes []string
	var params []artifact.Param
	if len(u.Params) > 0 {
		params = u.Params[0]
	}
	out := make([]string, len(u.SQL))
	for i, q := range u.SQL {
		out[i] = placeholder.ReplaceAllStringFunc(q, func(m string) string {
			n, _ := strconv.Atoi(m[1:])
			if n < 1 || n > len(params) {
				return m
			}
			lit, ok := literal(params[n-1])
			if !ok {
				notes = append(notes, fmt.Sprintf("%s#%d.%d: parameter %s (%s) has no exact literal; check it", u.Actor, u.Conn, u.Unit, m, params[n-1]))
			}
			return lit
		})
		out[i] = strings.Join(strings.Fields(out[i]), " ")
	}
	if len(u.Params) > 1 {
		notes = append(notes, fmt.Sprintf("%s#%d.%d binds %d times; the step uses the first parameters", u.Actor, u.Conn, u.Unit, len(u.Params)))
	}
	sort.Strings(notes)
	return strings.Join(out, "; "), notes
}

// literal turns a recorded parameter into SQL: NULL, a quoted string
// (PostgreSQL resolves its type from the context), or the integer a binary
// int4/int8 held; ok is false for other binary values (written as a bytea
// literal) and for values the record cut short.
func literal(p artifact.Param) (string, bool) {
	switch {
	case p.Null:
		return "NULL", true
	case p.Int != nil:
		return strconv.FormatInt(*p.Int, 10), true
	case p.Binary || p.Hex != "":
		return `'\x` + p.Hex + "'", false
	}
	return "'" + strings.ReplaceAll(p.Text, "'", "''") + "'", !p.Cut()
}

func indentBlock(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n")
}

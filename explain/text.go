package explain

import (
	"fmt"
	"strings"
)

// Text is the explanation as the command line prints it. It uses only the
// explanation's data (no time, no paths), so that the same order gives the
// same text.
func (x *Explanation) Text() string {
	var b strings.Builder
	if x.Anomaly.Name == "" {
		fmt.Fprintf(&b, "Anomaly: none: %s.\n", x.Anomaly.Sentence)
	} else {
		fmt.Fprintf(&b, "Anomaly: %s (Adya %s).\n  %s.\n", x.Anomaly.Name, x.Anomaly.Adya, x.Anomaly.Sentence)
	}
	if len(x.Cycle) > 0 {
		fmt.Fprintf(&b, "Dependency cycle (%s):\n", joinIDs(x.Cycle))
		for _, e := range x.Cycle {
			fmt.Fprintf(&b, "  %s\n", describeEdge(e))
		}
	}
	b.WriteString("Transactions:\n")
	for _, t := range x.Transactions {
		state := "committed"
		if !t.Committed {
			state = "not committed"
		}
		ro := ""
		if t.ReadOnly {
			ro = ", read-only"
		}
		fmt.Fprintf(&b, "  %-10s steps %s, %s, %s%s\n", t.ID, stepList(t.Steps), t.Isolation, state, ro)
	}
	if p := x.CriticalPair; p != nil {
		b.WriteString(p.Line() + "\n")
	}
	if len(x.Levels) > 0 {
		b.WriteString("The same order at stronger isolation levels (start-up option default_transaction_isolation, no code changed):\n")
		for _, l := range x.Levels {
			fmt.Fprintf(&b, "  %-16s %s\n", strings.ToUpper(l.Level)+":", levelLine(l))
		}
	}
	if x.Fix != nil {
		fmt.Fprintf(&b, "Fix: %s.\n", x.Fix.Advice)
	}
	for _, n := range x.Notes {
		fmt.Fprintf(&b, "Note: %s.\n", n)
	}
	return b.String()
}

func levelLine(l LevelRun) string {
	var parts []string
	for _, e := range l.Errors {
		parts = append(parts, fmt.Sprintf("%s got %s at step %d (%s)", e.Actor, e.SQLState, e.Step, oneLine(e.SQL)))
	}
	what := "no serialization failure or deadlock"
	if len(parts) > 0 {
		what = strings.Join(parts, "; ") + "; run again"
	}
	held := "the invariant held"
	if !l.Held {
		held = "the invariant still failed"
		if l.Outcome != "violation" {
			held = "the run ended " + l.Outcome
		}
		if l.Message != "" {
			held += ": " + oneLine(l.Message)
		}
	}
	return what + "; " + held
}

// Line is the critical pair in one line, as explain and a search's summary
// print it.
func (p *Pair) Line() string {
	if p.Found {
		return fmt.Sprintf("Critical pair: step %d (%s: %s) before step %d (%s: %s); with step %d first, everything else kept, the order passes (%s).",
			p.First, p.FirstActor, oneLine(p.FirstSQL), p.Second, p.SecondActor, oneLine(p.SecondSQL), p.Second, runs(len(p.Tried), "reversal"))
	}
	return fmt.Sprintf("Critical pair: not found; no reversal of two dependent commands made the order pass (%s).", runs(len(p.Tried), "reversal"))
}

func runs(n int, what string) string {
	if n == 1 {
		return "1 " + what + " run"
	}
	return fmt.Sprintf("%d %ss run", n, what)
}

func stepList(s []int) string {
	var out []string
	for _, n := range s {
		out = append(out, fmt.Sprint(n))
	}
	return strings.Join(out, ", ")
}

// oneLine is SQL on one line, cut at 80 characters.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:77]) + "..."
	}
	return s
}

package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/engine"
	"github.com/pginterleave/interleave/search"
)

// A usage error names the flag as typed, suggests the nearest, and comes
// with the usage line; --workers 0 is one per CPU, as its help says;
// an empty --plan is an error, not a whole search.
func TestParseArgsErrors(t *testing.T) {
	for _, c := range []struct {
		command string
		args    []string
		want    string // "" for no error
		pos     []string
	}{
		{"run", []string{"--max-run", "3"}, "unknown flag --max-run; did you mean --max-runs?", nil},
		{"run", []string{"--keep-sessions"}, "--keep-sessions is gone: kept sessions are the default; --fresh-sessions gives every actor connection a new backend", nil},
		{"run", []string{"-max-run=3"}, "unknown flag -max-run; did you mean --max-runs?", nil},
		{"run", []string{"--strategey", "dfs"}, "unknown flag --strategey; did you mean --strategy?", nil},
		{"run", []string{"--zzzzzz"}, "unknown flag --zzzzzz", nil},
		{"replay", []string{"a.json", "--guidde"}, "unknown flag --guidde; did you mean --guided?", nil},
		{"run", []string{"--workers", "x"}, `invalid value "x" for flag --workers: parse error`, nil},
		{"run", []string{"--plan"}, "flag needs an argument: --plan", nil},
		{"run", []string{"--plan", ""}, "--plan is empty", nil},
		{"run", []string{"--plan", "  "}, "--plan is empty", nil},
		{"run", []string{"--attempt-timeout", "0"}, "--attempt-timeout must be more than 0", nil},
		{"run", []string{"./dir", "--workers", "0"}, "", []string{"./dir"}},
		{"replay", []string{"--guided", "./dir", "--json", "f.json", "--", "--x"}, "", []string{"./dir", "f.json", "--x"}},
	} {
		pos, at, err := ParseArgs(c.command, c.args, "interleave "+c.command+" DIR [flags]")
		if c.want == "" {
			if err != nil || strings.Join(pos, "|") != strings.Join(c.pos, "|") {
				t.Errorf("%s %q: got %q, %v; want %q", c.command, c.args, pos, err, c.pos)
			}
			for i, p := range pos {
				if c.args[at[i]] != p {
					t.Errorf("%s %q: positional %q said to be at %d", c.command, c.args, p, at[i])
				}
			}
			continue
		}
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.HasPrefix(ue.Msg, c.want) || ue.Usage != "interleave "+c.command+" DIR [flags]" {
			t.Errorf("%s %q: got %v; want a usage error starting %q", c.command, c.args, err, c.want)
		}
	}
}

// A scenario program prints one error line and its usage line for a bad
// flag, and the same for a missing ARTIFACT.
func TestProgramUsageErrorIsTwoLines(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--max-run", "3"}, "interleave: unknown flag --max-run; did you mean --max-runs?\nUsage: PROG run [flags]\n"},
		{[]string{"replay"}, "interleave: replay needs ARTIFACT, the recorded failure (a JSON file written with --out).\nUsage: PROG replay ARTIFACT [flags]\n"},
	} {
		var out, errb bytes.Buffer
		code := Run(c.args, &out, &errb, Program{Scenarios: []engine.Scenario{{Name: "s"}}})
		got := strings.ReplaceAll(errb.String(), programName(), "PROG")
		if code != engine.ExitError || got != c.want || out.Len() != 0 {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", c.args, code, got, c.want)
		}
	}
}

func programName() string {
	name := os.Args[0]
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	return name
}

func TestNearest(t *testing.T) {
	names := FlagNames("run")
	for typed, want := range map[string]string{
		"max-run": "max-runs", "maxruns": "max-runs", "out": "out", "outt": "out", "jsn": "json",
		"seeed": "seed", "worker": "workers", "totally-unrelated": "",
	} {
		if got := Nearest(typed, names); got != want {
			t.Errorf("Nearest(%q) = %q; want %q", typed, got, want)
		}
	}
}

// --plan errors: the actor that is not one is named, one step is "1
// step", and a file that names an actor's commands out of their order is
// refused before anything runs.
func TestPlanErrors(t *testing.T) {
	sc := engine.Scenario{Name: "s", Actors: []engine.Actor{{Name: "alice"}, {Name: "bob"}}}
	dir := t.TempDir()
	outOfOrder := filepath.Join(dir, "plan")
	if err := os.WriteFile(outOfOrder, []byte("# alice's second first\nalice 2\nbob 1\nalice 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	twice := filepath.Join(dir, "twice")
	if err := os.WriteFile(twice, []byte("alice 1\nalice 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for list, want := range map[string]string{
		"alice,carol": `step 2 names "carol", which is not an actor of the scenario (alice, bob)`,
		"carol":       `"carol" is neither a file nor an actor of the scenario (alice, bob); give the order like alice,bob,alice,bob`,
		"alice,,bob":  `step 2 of "alice,,bob" names no actor`,
		",":           `step 1 of "," names no actor`,
		outOfOrder:    outOfOrder + ": step 1 names alice's command 2 before its command 1: an actor's commands run in their own order",
		twice:         twice + ": step 2 names alice's command 1 again",
	} {
		_, err := readPlan(list, sc)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("--plan %s: %v; want %q", list, err, want)
		}
	}
	if order, err := readPlan("bob", sc); err != nil || len(order) != 1 {
		t.Fatalf("--plan bob: %v %v", order, err)
	}
	for in, want := range map[string]string{
		"the order ends after 1 step, but actor alice has another command pending at decision 4: an order must name every executing command of every actor": "--plan ends after 1 step, but actor alice has another command pending at decision 4: an order must name every executing command of every actor",
		"something else": "something else",
	} {
		if got := planMessage(in); got != want {
			t.Errorf("planMessage(%q) = %q; want %q", in, got, want)
		}
	}
}

// run --json names the failing order, as the text summary prints it.
func TestSummaryJSONHasTheFailingOrder(t *testing.T) {
	a, err := artifact.Read("../../artifact/testdata/counter-failure.json")
	if err != nil {
		t.Fatal(err)
	}
	r := &engine.Result{Scenario: "counter", Outcome: engine.OutcomeViolation, Message: "m", Artifact: a, Summary: &search.Summary{}}
	var text strings.Builder
	PrintExplore(&text, r)
	f := Summarize(r)
	b, _ := json.Marshal(f)
	if f.FirstFailure == nil || len(f.FirstFailure.Order) != 4 {
		t.Fatalf("firstFailure: %s", b)
	}
	for _, st := range f.FirstFailure.Order {
		line := st.Actor + "  "
		if st.Actor == "bob" {
			line = "bob    "
		}
		if !strings.Contains(text.String(), line+st.SQL) {
			t.Errorf("step %d (%s %s) is not in the text summary:\n%s", st.Step, st.Actor, st.SQL, text.String())
		}
	}
	if got := f.FirstFailure.Order[2]; got.Step != 6 || got.Actor != "alice" || got.SQL != "UPDATE counter SET n = $1 WHERE id = 1  -- $1=1 (int4?)" {
		t.Errorf("step 3: %+v", got)
	}
}

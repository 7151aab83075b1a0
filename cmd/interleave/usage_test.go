package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// One usage style for every command (issue 20): an error line that names
// the flag as typed and suggests the nearest one, then the usage line, and
// nothing else; for run, replay and minimize before anything is built
// (PATH is empty, so a go build would fail).
func TestUsageErrorsAreOneLinePlusUsage(t *testing.T) {
	bin := interleaveBinary(t)
	root, _ := filepath.Abs("../..")
	for _, c := range []struct {
		args []string
		want string // the whole of stderr
	}{
		{[]string{"run"}, "interleave: run needs DIR, the scenario program's directory (or a scenario file).\nUsage: interleave run DIR [flags]\n"},
		{[]string{"run", "./examples/counter", "--max-run", "3"}, "interleave: unknown flag --max-run; did you mean --max-runs?\nUsage: interleave run DIR [flags]\n"},
		{[]string{"run", "-max-run", "3", "./examples/counter"}, "interleave: unknown flag -max-run; did you mean --max-runs?\nUsage: interleave run DIR [flags]\n"},
		{[]string{"run", "./examples/counter", "--plan", ""}, "interleave: --plan is empty: give the order, like alice,bob,alice,bob (each name its actor's next command), or a file with one 'ACTOR N' a line.\nUsage: interleave run DIR [flags]\n"},
		{[]string{"run", "./examples/counter", "extra"}, "interleave: run takes DIR, the scenario program's directory (or a scenario file); got 2 arguments: \"./examples/counter\" \"extra\".\nUsage: interleave run DIR [flags]\n"},
		{[]string{"replay", "./examples/counter"}, "interleave: replay needs DIR and ARTIFACT: the scenario program's directory (or a scenario file) and the recorded failure; got only \"./examples/counter\".\nUsage: interleave replay DIR ARTIFACT [flags]\n"},
		{[]string{"minimize", "./examples/counter", "f.json", "--max-attempt", "3"}, "interleave: unknown flag --max-attempt; did you mean --max-attempts?\nUsage: interleave minimize DIR ARTIFACT [flags]\n"},
		{[]string{"demo", "--max-run", "3"}, "interleave: unknown flag --max-run; did you mean --max-runs?\nUsage: interleave demo [--safe] [run flags]\n"},
		{[]string{"report"}, "interleave: report needs ARTIFACT.\nUsage: interleave report ARTIFACT --out FILE [--json] [flags]\n"},
		{[]string{"report", "f.json", "--outt", "x.html"}, "interleave: unknown flag --outt; did you mean --out?\nUsage: interleave report ARTIFACT --out FILE [--json] [flags]\n"},
		{[]string{"trace", "a.json", "b.json"}, "interleave: trace takes ARTIFACT; got 2 arguments: \"a.json\" \"b.json\".\nUsage: interleave trace ARTIFACT [--json] [--pcap FILE] [--force] [--spec [--spec-setup FILE]] [flags]\n"},
		{[]string{"clean", "now"}, "interleave: clean looks for leftovers in directories; \"now\" is not one.\nUsage: interleave clean [DIR...] [--database-url URL] [--dry-run] [flags]\n"},
		{[]string{"version", "-jsn"}, "interleave: unknown flag -jsn; did you mean --json?\nUsage: interleave version [--json] [flags]\n"},
		{[]string{"init", "--js", "--yaml"}, "interleave: --js and --yaml exclude each other: pick one kind of scenario.\nUsage: interleave init [DIR] [--js | --yaml] [--module-path CHECKOUT] [flags]\n"},
	} {
		r := runIn(t, root, []string{"PATH="}, bin, c.args...)
		if r.code != 2 || r.stderr != c.want || r.stdout != "" {
			t.Errorf("interleave %q: want exit 2 and stderr\n%s\ngot %s", c.args, c.want, r)
		}
	}
}

// run, replay and minimize lay out their help as every other command
// does (cobra's order: description, Usage, Examples, Flags, flags in one
// column with -h, --help); only run's speaks of .spec files.
func TestHelpLayoutIsTheSameEverywhere(t *testing.T) {
	bin := interleaveBinary(t)
	layout := regexp.MustCompile(`(?s)^[^\n].*\n\nUsage:\n  interleave [a-z]+ .*\n\nExamples:\n  interleave .*\n\nFlags:\n(      --[a-z-]+.*\n|  -h, --help +help for [a-z]+\n)+$`)
	for _, cmd := range []string{"run", "replay", "minimize", "report", "trace", "merge", "demo", "init"} {
		r := runIn(t, t.TempDir(), []string{"PATH="}, bin, cmd, "--help")
		if r.code != 0 || !layout.MatchString(r.stdout) {
			t.Errorf("interleave %s --help does not have the common layout:\n%s", cmd, r)
		}
		if n := strings.Count(r.stdout, ".spec"); (cmd == "replay" || cmd == "minimize") && n > 0 {
			t.Errorf("interleave %s --help mentions .spec files, which it does not take", cmd)
		}
		if !strings.Contains(r.stdout, "  -h, --help ") {
			t.Errorf("interleave %s --help does not list -h, --help", cmd)
		}
	}
}

// init --js and init --yaml without DIR write to folders of their own, so
// that the second does not refuse; `interleave run DIR` on a folder with a
// scenario file and no Go files runs that file, and one with none or
// several says what to run.
func TestInitKindsSideBySideAndRunDirOfAScenarioFile(t *testing.T) {
	bin := interleaveBinary(t)
	dir := t.TempDir()
	for _, kind := range []string{"", "--js", "--yaml"} {
		args := []string{"init"}
		if kind != "" {
			args = append(args, kind)
		}
		if r := runIn(t, dir, nil, bin, args...); r.code != 0 {
			t.Fatalf("interleave %q: %s", args, r)
		}
	}
	for _, f := range []string{"interleave-scenario/main.go", "interleave-scenario-js/scenario.mjs", "interleave-scenario-yaml/scenario.yaml"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("init wrote no %s: %v", f, err)
		}
	}
	empty := filepath.Join(dir, "empty")
	two := filepath.Join(dir, "two")
	os.Mkdir(empty, 0o755)
	os.Mkdir(two, 0o755)
	os.WriteFile(filepath.Join(two, "a.yaml"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(two, "b.mjs"), []byte(""), 0o644)
	for _, c := range []struct{ dir, want string }{
		{"empty", "interleave: empty holds no Go files and no scenario file: give the directory of a main package that calls interleave.Main, or a scenario file (.yaml, .mjs, .spec); interleave init writes one.\nUsage: interleave run DIR [flags]\n"},
		{"two", "interleave: two holds no Go program but several scenario files (two/a.yaml, two/b.mjs): name the one to run, for example interleave run two/a.yaml.\nUsage: interleave run DIR [flags]\n"},
	} {
		if r := runIn(t, dir, []string{"PATH="}, bin, "run", c.dir); r.code != 2 || r.stderr != c.want {
			t.Errorf("interleave run %s: want exit 2 and\n%s\ngot %s", c.dir, c.want, r)
		}
	}
	// The YAML scenario's actors are psql: the run finds the lost like.
	if r := runIn(t, dir, nil, bin, "run", "interleave-scenario-yaml", "--max-runs", "5"); r.code != 1 ||
		!strings.Contains(r.stderr, "interleave: interleave-scenario-yaml holds no Go program; running its scenario file interleave-scenario-yaml/scenario.yaml.") ||
		!strings.Contains(r.stdout, "violations: 1") {
		t.Errorf("interleave run interleave-scenario-yaml: want exit 1, the note and the violation: %s", r)
	}
}

package scenario

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/interleavetest"
	"github.com/pginterleave/interleave/internal/testkit/fixture"
)

// malformed are scenario files with one mistake each, and the positioned
// message LoadFile must give.
var malformed = []struct{ name, src, want string }{
	{"unknown key", "name: c\nactorz: []\n", `bad.yaml:2:1: unknown key "actorz" in the scenario file`},
	{"unknown actor key", "name: c\nactors:\n  - name: a\n    command: [x]\n    comand: [y]\n  - name: b\n    command: [x]\n", `bad.yaml:5:5: unknown key "comand" in actor 1`},
	{"wrong type", "name: c\nactors: 3\n", "bad.yaml:2:9: actors must be a list, found a number"},
	{"command as a string", "name: c\nactors:\n  - name: a\n    command: node run.js\n  - name: b\n    command: [x]\n", "bad.yaml:4:14: actor 1's command must be a list"},
	{"missing name", "actors:\n  - name: a\n    command: [x]\n  - name: b\n    command: [x]\n", "bad.yaml:1:1: the scenario has no name"},
	{"missing actors", "name: c\n", "bad.yaml:1:1: the scenario has no actors"},
	{"missing command", "name: counter\nsetup:\n  sql: SELECT 1\nactors:\n  - name: alice\n    command: [x]\n  - name: bob\n    cwd: .\n", "bad.yaml:7:5: actor 2 has no command"},
	{"missing cwd", "name: c\nactors:\n  - name: a\n    command: [psql]\n    cwd: nope/js\n  - {name: b, command: [x]}\n", "bad.yaml:5:10: actor 1's cwd nope/js does not exist (relative paths start at the scenario file's directory)"},
	{"cwd a file", "name: c\nactors:\n  - name: a\n    command: [psql]\n    cwd: bad.yaml\n  - {name: b, command: [x]}\n", "bad.yaml:5:10: actor 1's cwd bad.yaml is not a directory"},
	{"bad duration", "name: c\nactors:\n  - {name: a, command: [x]}\n  - {name: b, command: [x]}\noptions:\n  attempt-timeout: 30 seconds\n", `bad.yaml:6:20: attempt-timeout: "30 seconds" is not a duration`},
	{"one actor", "name: c\nactors:\n  - {name: a, command: [x]}\n", "bad.yaml:2:1: the scenario has 1 actor(s); it needs 2 to 8"},
	{"nine actors", "name: c\nactors:\n" + strings.Repeat("  - {name: a, command: [x]}\n", 8) + "  - {name: i, command: [x]}\n", "bad.yaml:11:6: actor 9: a scenario has at most 8 actors"},
	{"actor name", "name: c\nactors:\n  - name: 2bob\n    command: [x]\n  - name: b\n    command: [x]\n", `bad.yaml:3:11: actor 1 has name "2bob"`},
	{"duplicate actor", "name: c\nactors:\n  - {name: a, command: [x]}\n  - {name: a, command: [x]}\n", "bad.yaml:4:12: two actors are named a"},
	{"scenario name", "name: my race\n", `bad.yaml:1:7: name "my race": a scenario name starts with a letter`},
	{"unknown strategy", "name: c\noptions:\n  strategy: bfs\n", `bad.yaml:3:13: strategy "bfs" is not known (known: fifo, dfs, random, pct)`},
	{"negative budget", "name: c\noptions: {max-runs: -1}\n", "bad.yaml:2:21: max-runs must be an integer from 0"},
	{"boolean expectation", "name: c\ninvariant:\n  sql:\n    - query: SELECT true\n      expect: [[true]]\n", `bad.yaml:5:17: invariant query 1's expect: values are PostgreSQL's text output; write "t", not true`},
	{"expect and count", "name: c\ninvariant:\n  sql:\n    - query: SELECT 1\n      expect: [[\"1\"]]\n      expect-count: 1\n", "bad.yaml:4:7: invariant query 1 has both expect and expect-count"},
	{"missing setup file", "name: c\nsetup:\n  files: [nope.sql]\n", "bad.yaml:3:11: setup file nope.sql cannot be read: no such file or directory"},
	{"syntax", "name: c\nactors: [\n", "bad.yaml:2:9: "},
	{"duplicate key", "name: c\nname: d\n", `bad.yaml:2:1: mapping key "name" already defined`},
	{"empty", "# nothing\n", "bad.yaml:1:1: the file is empty"},
	{"alias", "name: c\nactors: *nope\n", "bad.yaml:2:9: alias *nope names no anchor"},
}

func TestLoadFileReportsPositionedMistakes(t *testing.T) {
	dir := t.TempDir()
	for _, m := range malformed {
		t.Run(m.name, func(t *testing.T) {
			path := filepath.Join(dir, "bad.yaml")
			if err := os.WriteFile(path, []byte(m.src), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadFile(path)
			if err == nil {
				t.Fatalf("no error for\n%s", m.src)
			}
			got := strings.TrimPrefix(err.Error(), dir+string(filepath.Separator))
			if !strings.HasPrefix(got, m.want) {
				t.Fatalf("error\n  %s\nwant a message starting with\n  %s", got, m.want)
			}
		})
	}
}

func TestLoadFileReadsEveryPart(t *testing.T) {
	l, err := LoadFile("testdata/ledger/ledger.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := filepath.Abs("testdata/ledger")
	if l.SourceRoot != dir || l.Options.Source.Root != dir {
		t.Fatalf("source root %q / %q, want %q", l.SourceRoot, l.Options.Source.Root, dir)
	}
	var rel []string
	for _, f := range l.Options.Source.Files {
		r, _ := filepath.Rel(dir, f)
		rel = append(rel, r)
	}
	// The file, its setup file, the programs its commands name (seed.sh,
	// post.sh; not sh, nor the -c script) and the lockfile beside them.
	if want := []string{"ledger.yaml", "schema.sql", "seed.sh", "post.sh", "package-lock.json"}; !reflect.DeepEqual(rel, want) {
		t.Fatalf("source files %v, want %v", rel, want)
	}
	if l.Options.Search.MaxAttempts != 10 || l.Options.Search.Strategy != "dfs" {
		t.Fatalf("options %+v", l.Options)
	}
	if names := []string{l.Scenario.Actors[0].Name, l.Scenario.Actors[1].Name}; names[0] != "alice" || names[1] != "bob" {
		t.Fatalf("actors %v", names)
	}
	if l.Scenario.Name != "ledger" || l.HandleActorErrors {
		t.Fatalf("loaded %+v", l)
	}
}

func opts(o interleave.Options) interleave.Options {
	o.Server.Use = interleavetest.Server()
	return o
}

// The YAML counter finds the lost update; its repair exhausts every order;
// the saved artifact replays exactly; a changed file makes the exact replay
// incompatible, naming the file.
func TestYAMLCounterFindsReplaysAndDetectsChanges(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("testdata/counter.yaml")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "counter.yaml")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	art := filepath.Join(dir, "failure.json")
	o := opts(l.Options)
	o.Output.Out = art
	res, err := interleave.Explore(fixture.Context(t), l.Scenario, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomeViolation || res.ExitCode() != 1 || res.Message != "Both increments must be retained: got 1, want 2" {
		t.Fatalf("outcome %s (exit %d): %s", res.Outcome, res.ExitCode(), res.Message)
	}
	rec, err := artifact.Read(art)
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.Fingerprint.Sources; len(got) != 1 || got[0].Path != "counter.yaml" {
		t.Fatalf("fingerprinted sources %+v, want counter.yaml", got)
	}

	rep, err := interleave.Replay(fixture.Context(t), l.Scenario, rec, interleave.ReplayOptions{Options: opts(l.Options)})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Outcome != interleave.OutcomeViolation || !rep.SameFailure || rep.Guided || rep.ExitCode() != 1 {
		t.Fatalf("exact replay: %s (same failure %v): %s %v", rep.Outcome, rep.SameFailure, rep.Message, rep.Differences)
	}

	// Any change to the file: the recording no longer applies exactly.
	if err := os.WriteFile(path, append(src, []byte("# edited\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	l2, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rep, err = interleave.Replay(fixture.Context(t), l2.Scenario, rec, interleave.ReplayOptions{Options: opts(l2.Options)})
	if err != nil {
		t.Fatal(err)
	}
	if rep.ExitCode() != interleave.ExitIncompatible || len(rep.Differences) == 0 || !strings.Contains(strings.Join(rep.Differences, "\n"), "source file counter.yaml changed") {
		t.Fatalf("replay after the edit: %s (exit %d): %v", rep.Outcome, rep.ExitCode(), rep.Differences)
	}

	fixed, err := LoadFile("testdata/counter-fixed.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err = interleave.Explore(fixture.Context(t), fixed.Scenario, opts(fixed.Options))
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomePass || !res.Summary.Exhausted() || res.Summary.Attempted < 2 {
		t.Fatalf("repaired counter: %s after %d attempts (%s): %s", res.Outcome, res.Summary.Attempted, res.Summary.StopReason, res.Message)
	}
}

// Setup SQL, files and commands, actors with cwd and env, SQL checks with
// NULL and a count, and an invariant command, against the server.
func TestYAMLEveryPartRuns(t *testing.T) {
	l, err := LoadFile("testdata/ledger/ledger.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := interleave.Explore(fixture.Context(t), l.Scenario, opts(l.Options))
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomePass || !res.Summary.Exhausted() {
		t.Fatalf("ledger: %s: %s", res.Outcome, res.Message)
	}
}

// A check that fails says what it found.
func TestYAMLInvariantMessages(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rows.yaml")
	src := `name: rows
setup:
  sql: CREATE TABLE t (a int, b text); INSERT INTO t VALUES (1, NULL), (2, 'x');
actors:
  - {name: a, command: [true]}
  - {name: b, command: [true]}
invariant:
  sql:
    - query: SELECT a, b FROM t ORDER BY a
      expect: [["1", null], ["2", "y"]]
`
	os.WriteFile(path, []byte(src), 0o644)
	l, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := interleave.Explore(fixture.Context(t), l.Scenario, opts(l.Options))
	if err != nil {
		t.Fatal(err)
	}
	want := `invariant query 1 (SELECT a, b FROM t ORDER BY a): got [["1",null],["2","x"]], want [["1",null],["2","y"]]`
	if res.Outcome != interleave.OutcomeViolation || res.Message != want {
		t.Fatalf("%s: %s\nwant %s", res.Outcome, res.Message, want)
	}
}

// A failing invariant command is a violation with the tail of its stderr;
// its stdout (here 10 MB) is not kept.
func TestYAMLInvariantCommandFails(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cmd.yaml")
	src := `name: cmd
actors:
  - {name: a, command: [true]}
  - {name: b, command: [true]}
invariant:
  command: [sh, -c, "head -c 10000000 /dev/zero; head -c 10000 /dev/zero | tr '\\0' x >&2; echo ' broken' >&2; exit 4"]
`
	os.WriteFile(path, []byte(src), 0o644)
	l, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := interleave.RunOnce(fixture.Context(t), l.Scenario, opts(l.Options))
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomeViolation || !strings.HasSuffix(res.Message, "failed: exit status 4: "+strings.Repeat("x", 4096-len(" broken\n"))+" broken") {
		t.Fatalf("%s: %.300s", res.Outcome, res.Message)
	}
}

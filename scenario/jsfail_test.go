//go:build !windows

package scenario

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/internal/testkit/fixture"
	"github.com/pginterleave/interleave/internal/testkit/jsseed"
	"github.com/pginterleave/interleave/internal/testkit/poll"
	"github.com/pginterleave/interleave/scenario/jshost"
)

// jsModule is a scenario whose actors and invariant are the given bodies.
// It imports defineScenario under this project's own package name.
func jsModule(name, setup, alice, bob, invariant string) string {
	return `import assert from 'node:assert/strict';
import fs from 'node:fs';
import pg from 'pg';
import { defineScenario } from '@pginterleave/interleave';

export default defineScenario({
  name: '` + name + `',
  async setup({ db, connectionString, connectionOptions }) {
    await db.query('CREATE TABLE t (n int)');
    ` + setup + `
  },
  actors: {
    async alice({ actor, connectionString, signal }) { ` + alice + ` },
    async bob({ actor, connectionString, signal }) { ` + bob + ` },
  },
  async invariant({ db, results }) { ` + invariant + ` },
});
`
}

// oneQuery is an actor body that runs one statement through its proxy.
const oneQuery = `const c = new pg.Client({ connectionString }); c.on('error', () => {});
    await c.connect(); try { await c.query('INSERT INTO t VALUES (1)'); } finally { await c.end(); }`

func exploreJS(t *testing.T, dir, name, src string, tune func(*interleave.Options)) (*interleave.Result, *Loaded) {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	l := loadJS(t, path)
	o := opts(l.Options)
	if tune != nil {
		tune(&o)
	}
	res, err := interleave.Explore(fixture.Context(t), l.Scenario, o)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res, l
}

// What the scenario's code throws decides the outcome, as in the original
// tool: a node:assert failure in the invariant is a violation; any other
// throw there is a harness error (exit 2); an actor's throw is an actor
// error; a setup throw is a harness error. Values are kept as JSON, and
// console.log never disturbs the protocol.
func TestJSOutcomesFollowWhatTheCodeThrows(t *testing.T) {
	dir := jsseed.Project(t, true, nil)
	cases := []struct {
		name, setup, alice, bob, invariant string
		outcome                            interleave.Outcome
		message                            string
	}{
		{"assert-without-message", "", oneQuery + "; return 1;", oneQuery + "; return 2;",
			`const { rows } = await db.query('SELECT count(*)::int AS n FROM t'); assert.equal(rows[0].n, 3);`,
			interleave.OutcomeViolation, "Expected values to be strictly equal"},
		{"invariant-type-error", "", oneQuery, oneQuery, `const x = undefined; x.count();`,
			interleave.OutcomeHarnessError, "the invariant threw TypeError: Cannot read properties of undefined (reading 'count'), which is not a node:assert AssertionError"},
		{"invariant-query-error", "", oneQuery, oneQuery, `await db.query('SELECT * FROM missing');`,
			interleave.OutcomeHarnessError, `the invariant threw relation "missing" does not exist (SQLSTATE 42P01)`},
		{"actor-throws", "", oneQuery, oneQuery + "; throw new RangeError('bob ran out of range');", `assert.ok(true);`,
			interleave.OutcomeActorError, "actor bob failed: RangeError: bob ran out of range"},
		{"actor-query-error", "", oneQuery, `const c = new pg.Client({ connectionString }); await c.connect();
    try { await c.query('INSERT INTO t VALUES ($1)', ['x']); } finally { await c.end(); }`, `assert.ok(true);`,
			interleave.OutcomeActorError, `actor bob failed: invalid input syntax for type integer: "x" (SQLSTATE 22P02)`},
		{"setup-throws", "throw new Error('no fixtures today');", oneQuery, oneQuery, `assert.ok(true);`,
			interleave.OutcomeHarnessError, "setup failed: no fixtures today"},
		// A value JSON cannot hold is the harness's failure, not the
		// actor's (scenario/js.go, actorError), since the engine honours
		// ErrHarness for actors (commit 1f4eb5e).
		{"actor-value-not-json", "", oneQuery + "; return 10n;", oneQuery, `assert.ok(true);`,
			interleave.OutcomeHarnessError, "actor alice could not run: returned a value that cannot be recorded as JSON: Do not know how to serialize a BigInt"},
		{"pass-with-values-and-logs", `console.log('{"id":1,"ok":false}'); console.error('setup says hi');`,
			`console.log('{"id":2,"ok":true,"value":"forged"}'); ` + oneQuery + `; return { who: actor, big: 9007199254740993n.toString(), list: [1, 'two', null] };`,
			oneQuery + "; return null;",
			`assert.deepEqual(results.alice.value, { who: 'alice', big: '9007199254740993', list: [1, 'two', null] });
    assert.equal(results.bob.value, null);
    assert.deepEqual(results.map((r) => r.actor), ['alice', 'bob']);
    assert.ok(results.every((r) => r.status === 'fulfilled'));`,
			interleave.OutcomePass, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, _ := exploreJS(t, dir, c.name+".mjs", jsModule(c.name, c.setup, c.alice, c.bob, c.invariant), nil)
			if res.Outcome != c.outcome || res.ExitCode() != c.outcome.ExitCode() {
				t.Fatalf("outcome %s (exit %d): %s\nwant %s", res.Outcome, res.ExitCode(), res.Message, c.outcome)
			}
			if !strings.Contains(res.Message, c.message) {
				t.Fatalf("message %q\nwant it to contain %q", res.Message, c.message)
			}
			if c.outcome == interleave.OutcomePass && !res.Summary.Exhausted() {
				t.Fatalf("pass without exploring every order: %s", res.Summary.StopReason)
			}
			if c.name == "assert-without-message" {
				var got []string
				for _, a := range res.Artifact.Actors {
					got = append(got, a.Actor+"="+string(a.Value))
				}
				if strings.Join(got, " ") != "alice=1 bob=2" {
					t.Fatalf("recorded actor values %v, want alice=1 bob=2", got)
				}
			}
		})
	}
}

// A Node process killed while an actor runs, or while the invariant runs,
// ends the attempt with one sentence naming what it was running (exit 2);
// during the invariant it is a harness error. Nothing is left running.
func TestJSNodeKilledMidAttempt(t *testing.T) {
	dir := jsseed.Project(t, true, nil)
	marker := filepath.Join(dir, "pid")
	waitForKill := `fs.writeFileSync(` + strconv.Quote(marker) + `, String(process.pid)); await new Promise(() => {});`

	// From outside, while alice waits: the test kills her Node process.
	path := filepath.Join(dir, "killed.mjs")
	os.WriteFile(path, []byte(jsModule("killed", "", waitForKill, oneQuery, "assert.ok(true);")), 0o644)
	l := loadJS(t, path)
	type explored struct {
		res *interleave.Result
		err error
	}
	done := make(chan explored, 1)
	go func() {
		res, err := interleave.Explore(fixture.Context(t), l.Scenario, opts(l.Options))
		done <- explored{res, err}
	}()
	var pid int
	poll.Until(t, "alice's Node process to write its pid to "+marker, func() bool {
		b, _ := os.ReadFile(marker)
		pid, _ = strconv.Atoi(string(b))
		return pid > 0
	})
	syscall.Kill(pid, syscall.SIGKILL)
	r := <-done
	res, err := r.res, r.err
	if err != nil {
		t.Fatal(err)
	}
	want := "the Node process running killed.mjs was killed by signal 9 (killed) while it ran actor alice"
	if res.ExitCode() != interleave.ExitError || !strings.Contains(res.Message, want) {
		t.Fatalf("killed during an actor: %s (exit %d): %s\nwant exit 2 and %q", res.Outcome, res.ExitCode(), res.Message, want)
	}
	t.Logf("killed during an actor: %s: %s", res.Outcome, res.Message)

	// The invariant's process dies: a harness error, whatever the state.
	res, l2 := exploreJS(t, dir, "dies.mjs", jsModule("dies", "", oneQuery, oneQuery, "process.kill(process.pid, 'SIGKILL');"), nil)
	want = "the Node process running dies.mjs was killed by signal 9 (killed) while it ran the invariant"
	if res.Outcome != interleave.OutcomeHarnessError || res.ExitCode() != 2 || !strings.Contains(res.Message, want) {
		t.Fatalf("killed during the invariant: %s (exit %d): %s\nwant a harness error with %q", res.Outcome, res.ExitCode(), res.Message, want)
	}

	// The next search on the same scenario starts a fresh process (which
	// dies the same way).
	again, err := interleave.Explore(fixture.Context(t), l2.Scenario, opts(l2.Options))
	if err != nil || again.Outcome != interleave.OutcomeHarnessError || !strings.Contains(again.Message, want) {
		t.Fatalf("second search: %v %s: %s", err, again.Outcome, again.Message)
	}
	for _, l := range []*Loaded{l, l2} {
		l.Close()
	}
	if left := nodeProcessesIn(t, dir); len(left) > 0 {
		t.Fatalf("Node processes %v outlived Close", left)
	}
}

// The actor's AbortSignal fires at the attempt's deadline, and for an actor
// that has returned, when its attempt ends.
func TestJSActorSignalFiresAtTheDeadline(t *testing.T) {
	dir := jsseed.Project(t, true, nil)
	ended := filepath.Join(dir, "ended")
	listen := `signal.addEventListener('abort', () => fs.appendFileSync(` + strconv.Quote(ended) + `, actor + ' ' + signal.reason.message + '\n')); ` + oneQuery
	res, _ := exploreJS(t, dir, "listens.mjs", jsModule("listens", "", listen, oneQuery, "assert.ok(true);"), nil)
	got, _ := os.ReadFile(ended)
	if res.Outcome != interleave.OutcomePass || string(got) != strings.Repeat("alice the attempt ended\n", res.Summary.Attempted) {
		t.Fatalf("%s after %d attempts; the signals that fired:\n%s", res.Outcome, res.Summary.Attempted, got)
	}

	marker := filepath.Join(dir, "aborted")
	waitForAbort := oneQuery + `; await new Promise((resolve, reject) => signal.addEventListener('abort', () => {
      fs.writeFileSync(` + strconv.Quote(marker) + `, signal.reason.name + ': ' + signal.reason.message); reject(signal.reason); }));`
	res, _ = exploreJS(t, dir, "slow.mjs", jsModule("slow", "", waitForAbort, oneQuery, "assert.ok(true);"), func(o *interleave.Options) {
		o.AttemptTimeout, o.Search.MaxAttempts = 2*time.Second, 1
	})
	if res.Outcome != interleave.OutcomeInconclusive {
		t.Fatalf("%s: %s, want inconclusive (the deadline)", res.Outcome, res.Message)
	}
	got, err := os.ReadFile(marker)
	if err != nil || !strings.HasPrefix(string(got), "AbortError: the attempt ended") {
		t.Fatalf("the actor's signal: %q (%v)", got, err)
	}
}

// Loading explains what is wrong in one sentence: no Node, no
// node_modules, a scenario the original tool would refuse, a library
// function that needs the CLI here.
func TestJSLoadErrors(t *testing.T) {
	withModules := jsseed.Project(t, true, nil)
	bare := jsseed.Project(t, false, nil)
	valid := func(actors string) string {
		return `import { defineScenario } from '@pavangupta352/interleave';
export default defineScenario({ name: 'x', async setup() {}, async invariant() {}, actors: { ` + actors + ` } });
`
	}
	cases := []struct{ name, dir, file, src, want string }{
		{"no node_modules", bare, "scenario.mjs", "", "node-postgres (the npm package pg) is not installed for " + filepath.Join(bare, "scenario.mjs") + ": run npm install in " + bare},
		{"one actor", withModules, "one.mjs", valid("alice() {}"), "one.mjs could not be loaded: TypeError: Scenario actors must contain between 2 and 8 actors (found 1)"},
		{"bad actor id", withModules, "id.mjs", valid("alice() {}, '2bob'() {}"), `id.mjs could not be loaded: TypeError: Scenario actor id "2bob" is invalid`},
		{"no default export", withModules, "nodefault.mjs", "export const scenario = 1;\n", "has no default export; end it with export default defineScenario("},
		{"missing package", withModules, "dep.mjs", "import leftPad from 'left-pad';\n" + valid("a() {}, b() {}"), "the package left-pad that " + filepath.Join(withModules, "dep.mjs") + " imports is not installed: run npm install in " + withModules},
		{"syntax error", withModules, "syntax.mjs", "export default {\n  name: 'x',\n  setup: +\n", "syntax.mjs could not be loaded: " + filepath.Join(withModules, "syntax.mjs") + ":4: SyntaxError: Unexpected end of input"},
		{"library function", withModules, "lib.mjs", "import { runOnce } from '@pavangupta352/interleave';\nawait runOnce({}, {});\n", "runOnce() cannot be called from a scenario that interleave is running; call it from a test file or a script"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(c.dir, c.file)
			if c.src != "" {
				os.WriteFile(path, []byte(c.src), 0o644)
			}
			l, err := LoadJS(path)
			if err == nil {
				l.Close()
				t.Fatal("loaded")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error\n  %v\nwant it to contain\n  %s", err, c.want)
			}
		})
	}
	if left := append(nodeProcessesIn(t, withModules), nodeProcessesIn(t, bare)...); len(left) > 0 {
		t.Fatalf("Node processes %v outlived failed loads", left)
	}

	t.Run("old node on PATH", func(t *testing.T) {
		bin := t.TempDir()
		os.WriteFile(filepath.Join(bin, "node"), []byte("#!/bin/sh\necho v12.22.9\n"), 0o755)
		t.Setenv("PATH", bin)
		_, err := LoadJS(filepath.Join(withModules, "scenario.mjs"))
		if err == nil || !strings.HasPrefix(err.Error(), "Node.js v12.22.9 ("+filepath.Join(bin, "node")+") cannot run JavaScript scenarios: Interleave needs Node.js 20.6 or newer") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("no node on PATH", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		_, err := LoadJS(filepath.Join(withModules, "scenario.mjs"))
		if !errors.Is(err, jshost.ErrNoNode) || !strings.Contains(err.Error(), "Node.js was not found on PATH; install Node.js 20.6 or newer") {
			t.Fatalf("error %v", err)
		}
	})
}

// JSOptions.Output receives the scenario's console output, line by line.
func TestJSOutputIsForwarded(t *testing.T) {
	dir := jsseed.Project(t, true, nil)
	path := filepath.Join(dir, "logs.mjs")
	os.WriteFile(path, []byte("console.log('loading', 1 + 1);\n"+
		"import { defineScenario } from '@pavangupta352/interleave';\n"+
		"export default defineScenario({ name: 'x', async setup() {}, async invariant() {}, actors: { a() {}, b() {} } });\n"), 0o644)
	var out lockedBuffer
	l, err := LoadJSWith(path, JSOptions{Output: &out})
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	if got := out.String(); got != "node: loading 2\n" {
		t.Fatalf("forwarded %q", got)
	}
}

// lockedBuffer is a bytes.Buffer safe for the output goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

package scenario

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/interleavetest"
	"github.com/pginterleave/interleave/internal/testkit/fixture"
	"github.com/pginterleave/interleave/internal/testkit/jsseed"
)

// runCLI runs `interleave CMD scenario.mjs ARGS` as cmd/interleave does for
// a scenario file (RunCLIWithOptions with the loaded options), against the
// shared test server.
func runCLI(t *testing.T, l *Loaded, args ...string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	args = append(args, "--database-url", serverURL(t, interleavetest.Server()))
	code := interleave.RunCLIWithOptions(args, &out, &out, l.Options, l.Scenario)
	return code, out.String()
}

func loadJS(t *testing.T, path string) *Loaded {
	t.Helper()
	l, err := LoadJS(path)
	if err != nil {
		t.Fatalf("LoadJS: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func mustContain(t *testing.T, what, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Fatalf("%s: output lacks %q\n%s", what, w, out)
		}
	}
}

// The original tool's opening example, unchanged: the search finds the lost
// update (exit 1, the assertion's message), the artifact replays exactly
// (exit 1, the same failure), minimize keeps it, an edit to the imported
// counter.mjs makes the exact replay incompatible, and no Node process is
// left once the scenario is closed.
func TestJSSeedExampleRunReplayMinimize(t *testing.T) {
	dir := jsseed.Project(t, true, nil)
	for _, f := range jsseed.Files {
		jsseed.SameAsSeed(t, dir, f)
	}
	l, err := LoadJS(filepath.Join(dir, "scenario.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if !strings.HasPrefix(l.Runtime, "Node.js v") || l.Scenario.Name != "application-counter" || len(l.Scenario.Actors) != 2 || l.Scenario.Actors[0].Name != "alice" || l.Scenario.Actors[1].Name != "bob" {
		t.Fatalf("loaded %q with actors %v", l.Scenario.Name, l.Scenario.Actors)
	}
	var rel []string
	for _, f := range l.Options.Source.Files {
		r, _ := filepath.Rel(dir, f)
		rel = append(rel, r)
	}
	if want := []string{"scenario.mjs", "counter.mjs", "package.json", "package-lock.json"}; !slices.Equal(rel, want) {
		t.Fatalf("fingerprinted sources %v, want %v (the module graph's local files, package.json, the lockfile; nothing from node_modules)", rel, want)
	}

	art := filepath.Join(dir, "failure.json")
	code, out := runCLI(t, l, "run", "--out", art)
	if code != 1 {
		t.Fatalf("run: exit %d, want 1\n%s", code, out)
	}
	t.Logf("run:\n%s", out)
	mustContain(t, "run", out, "application-counter: 1 attempted, 1 completed; violations: 1; failure.", "Both increments must be retained", "Saved "+art)

	// The report reads only the artifact: it renders offline as for Go.
	rec, err := artifact.Read(art)
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := interleave.RenderReport(&page, rec, ""); err != nil || !strings.Contains(page.String(), "Both increments must be retained") {
		t.Fatalf("report: %v", err)
	}

	code, out = runCLI(t, l, "replay", art)
	if code != 1 {
		t.Fatalf("replay: exit %d, want 1\n%s", code, out)
	}
	t.Logf("replay:\n%s", out)
	mustContain(t, "replay", out, "application-counter: violation (replay)", "the same failure as recorded", "Both increments must be retained")

	min := filepath.Join(dir, "minimal.json")
	code, out = runCLI(t, l, "minimize", art, "--out", min)
	if code != 1 {
		t.Fatalf("minimize: exit %d, want 1 (the failure kept)\n%s", code, out)
	}
	t.Logf("minimize:\n%s", out)
	mustContain(t, "minimize", out, "Both increments must be retained")
	if !isRegular(min) {
		t.Fatalf("minimize wrote no %s\n%s", min, out)
	}

	pids := nodeProcessesIn(t, dir)
	if len(pids) == 0 {
		t.Fatal("no Node process runs the scenario while it is loaded")
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if left := nodeProcessesIn(t, dir); len(left) > 0 {
		t.Fatalf("Node processes %v outlived Close", left)
	}

	// The application code changed: the recording no longer applies exactly.
	counter := filepath.Join(dir, "counter.mjs")
	src, _ := os.ReadFile(counter)
	os.WriteFile(counter, append(src, []byte("// edited\n")...), 0o644)
	l2 := loadJS(t, filepath.Join(dir, "scenario.mjs"))
	code, out = runCLI(t, l2, "replay", art)
	if code != interleave.ExitIncompatible {
		t.Fatalf("replay after editing counter.mjs: exit %d, want 3\n%s", code, out)
	}
	t.Logf("replay after the edit:\n%s", out)
	mustContain(t, "replay after the edit", out, "counter.mjs")
}

// poolScenario is the seed's counter with a pg.Pool actor; fixed picks the
// repaired increment (one UPDATE ... SET value = value + 1).
func poolScenario(name, counterModule string) string {
	return `import assert from 'node:assert/strict';
import pg from 'pg';
import { defineScenario } from '@pavangupta352/interleave';
import { incrementCounter } from './` + counterModule + `';

async function increment({ connectionString, signal }) {
  const pool = new pg.Pool({ connectionString, max: 2 });
  pool.on('error', () => {});
  signal.addEventListener('abort', () => pool.end().catch(() => {}));
  try { return { value: await incrementCounter(pool, 1) }; }
  finally { await pool.end(); }
}

export default defineScenario({
  name: '` + name + `',
  async setup({ db }) {
    await db.query('CREATE TABLE counters (id int PRIMARY KEY, value int NOT NULL)');
    await db.query('INSERT INTO counters VALUES (1, 0)');
  },
  actors: { alice: increment, bob: increment },
  async invariant({ db, results }) {
    const { rows } = await db.query('SELECT value FROM counters WHERE id = 1');
    assert.equal(results.length, 2, 'results lists both actors');
    assert.equal(results.alice.status, 'fulfilled');
    assert.equal(rows[0].value, 2, 'Both increments must be retained');
  },
});
`
}

const fixedCounter = `export async function incrementCounter(client, id) {
  const { rows } = await client.query('UPDATE counters SET value = value + 1 WHERE id = $1 RETURNING value', [id]);
  return rows[0].value;
}
`

// A pg.Pool actor under the multi-producer profile finds the same lost
// update; the repaired increment (one UPDATE ... SET value = value + 1)
// passes with every order explored, for the pool and for the seed's Client.
func TestJSPoolActorAndRepair(t *testing.T) {
	dir := jsseed.Project(t, true, map[string]string{
		"pool.mjs":          poolScenario("pool-counter", "counter.mjs"),
		"pool-fixed.mjs":    poolScenario("pool-counter-fixed", "counter-fixed.mjs"),
		"counter-fixed.mjs": fixedCounter,
	})
	l := loadJS(t, filepath.Join(dir, "pool.mjs"))
	code, out := runCLI(t, l, "run", "--connections", "multi-producer")
	t.Logf("pool:\n%s", out)
	if code != 1 {
		t.Fatalf("pool counter: exit %d, want 1\n%s", code, out)
	}
	mustContain(t, "pool counter", out, "Both increments must be retained")

	fixed := loadJS(t, filepath.Join(dir, "pool-fixed.mjs"))
	code, out = runCLI(t, fixed, "run", "--connections", "multi-producer", "--max-runs", "500")
	t.Logf("pool, repaired:\n%s", out)
	if code != 0 {
		t.Fatalf("repaired pool counter: exit %d, want 0\n%s", code, out)
	}
	mustContain(t, "repaired pool counter", out, "violations: 0; frontier exhausted")

	// The seed's scenario.mjs with the repaired counter.mjs.
	seedFixed := jsseed.Project(t, true, map[string]string{"counter.mjs": fixedCounter})
	sf := loadJS(t, filepath.Join(seedFixed, "scenario.mjs"))
	code, out = runCLI(t, sf, "run", "--max-runs", "500")
	t.Logf("seed, repaired:\n%s", out)
	if code != 0 {
		t.Fatalf("repaired seed counter: exit %d, want 0\n%s", code, out)
	}
	mustContain(t, "repaired seed counter", out, "violations: 0; frontier exhausted")
}

// processActor (the original tool's export) runs a program as an actor
// against its proxy: here node running the seed's counter with DATABASE_URL,
// printing its JSON value, next to an in-process actor. The lost update is
// found and the program's value recorded.
func TestJSProcessActor(t *testing.T) {
	dir := jsseed.Project(t, true, map[string]string{
		"increment.mjs": `import pg from 'pg';
import { incrementCounter } from './counter.mjs';
const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
await client.connect();
const value = await incrementCounter(client, 1);
await client.end();
console.log(JSON.stringify({ value, actor: process.env.INTERLEAVE_ACTOR }));
`,
		"process.mjs": `import assert from 'node:assert/strict';
import { Client } from 'pg';
import { defineScenario, processActor } from '@pavangupta352/interleave';
import { incrementCounter } from './counter.mjs';

export default defineScenario({
  name: 'process-counter',
  async setup({ db }) {
    await db.query('CREATE TABLE counters (id int PRIMARY KEY, value int NOT NULL)');
    await db.query('INSERT INTO counters VALUES (1, 0)');
  },
  actors: {
    alice: processActor(process.execPath, ['increment.mjs'], { cwd: new URL('.', import.meta.url).pathname }),
    async bob({ connectionString }) {
      const c = new Client({ connectionString }); await c.connect();
      try { return { value: await incrementCounter(c, 1) }; } finally { await c.end(); }
    },
  },
  async invariant({ db }) {
    const { rows } = await db.query('SELECT value FROM counters WHERE id = 1');
    assert.equal(rows[0].value, 2, 'Both increments must be retained');
  },
});
`,
	})
	l := loadJS(t, filepath.Join(dir, "process.mjs"))
	res, err := interleave.Explore(fixture.Context(t), l.Scenario, opts(l.Options))
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomeViolation || !strings.HasPrefix(res.Message, "Both increments must be retained") {
		t.Fatalf("%s: %s", res.Outcome, res.Message)
	}
	if v := string(res.Artifact.Actors[0].Value); v != `{"value":1,"actor":"alice"}` {
		t.Fatalf("alice's recorded value %s", v)
	}
}

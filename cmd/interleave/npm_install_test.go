package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/pginterleave/interleave/internal/testkit/jsseed"
	"github.com/pginterleave/interleave/internal/testkit/testenv"
)

// npmTestVersion is the version the packages are built with here; the
// installed binary must report it.
const npmTestVersion = "0.0.1-npmtest"

// The npm packages as a JavaScript team installs them: scripts/npm-pack
// (the main package and this platform's), npm install of both tarballs
// into a new project offline, then the original tool's opening example run
// with npx interleave, and through the API from a node:test file: explore()
// of the scenario file, and of a scenario defined in the test file itself
// (its functions run in the test process), replayed and read back. Both
// must find the counter's lost update.
func TestNPMPackagesInstallAndFindTheLostUpdate(t *testing.T) {
	testenv.Command(t, "node", "install Node.js 20.6 or newer (apt-get install -y nodejs; scripts/ensure-deps node)")
	testenv.Command(t, "npm", "install npm (apt-get install -y npm; scripts/ensure-deps node)")
	seed := jsseed.Dir(t)
	pgModules := filepath.Join(jsseed.Installed(t), "node_modules")

	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	tarballs := t.TempDir()
	pack := exec.Command(filepath.Join(repo, "scripts", "npm-pack"), tarballs)
	pack.Env = append(os.Environ(), "NPM_PLATFORMS=host", "INTERLEAVE_VERSION="+npmTestVersion)
	if out, err := pack.CombinedOutput(); err != nil {
		t.Fatalf("scripts/npm-pack: %v\n%s", err, out)
	}
	platform := npmPlatform()
	main := filepath.Join(tarballs, "pginterleave-interleave-"+npmTestVersion+".tgz")
	native := filepath.Join(tarballs, "pginterleave-interleave-"+platform+"-"+npmTestVersion+".tgz")

	project := t.TempDir()
	writeFiles(t, project, map[string]string{
		"package.json":  `{ "name": "npm-install-test", "private": true, "type": "module" }` + "\n",
		"race.test.mjs": npmRaceTest,
	})
	for _, f := range []string{"scenario.mjs", "counter.mjs"} {
		data, err := os.ReadFile(filepath.Join(seed, f))
		if err != nil {
			t.Fatal(err)
		}
		writeFiles(t, project, map[string]string{f: string(data)})
	}
	offline := []string{"npm_config_offline=true", "npm_config_audit=false", "npm_config_fund=false", "npm_config_update_notifier=false"}
	if r := runIn(t, project, offline, "npm", "install", "--save-dev", main, native); r.code != 0 {
		t.Fatalf("npm install of the tarballs, offline: %s", r)
	}
	// node-postgres, the example's own dependency, from the shared install
	// (the registry is not needed for this test's packages).
	if err := os.Symlink(filepath.Join(pgModules, "pg"), filepath.Join(project, "node_modules", "pg")); err != nil {
		t.Fatal(err)
	}

	var pkg struct {
		Bin                  map[string]string `json:"bin"`
		OptionalDependencies map[string]string `json:"optionalDependencies"`
	}
	readJSON(t, filepath.Join(project, "node_modules", "@pginterleave", "interleave", "package.json"), &pkg)
	if pkg.Bin["interleave"] == "" || len(pkg.OptionalDependencies) != 5 || pkg.OptionalDependencies["@pginterleave/interleave-"+platform] != npmTestVersion {
		t.Fatalf("the main package: bin %v, optionalDependencies %v", pkg.Bin, pkg.OptionalDependencies)
	}
	var nativePkg struct{ OS, CPU []string }
	readJSON(t, filepath.Join(project, "node_modules", "@pginterleave", "interleave-"+platform, "package.json"), &nativePkg)
	if strings.Join(nativePkg.OS, ",")+"-"+strings.Join(nativePkg.CPU, ",") != platform {
		t.Fatalf("the platform package declares os %v cpu %v, want %s", nativePkg.OS, nativePkg.CPU, platform)
	}

	if r := runIn(t, project, offline, "npx", "interleave", "--version"); r.code != 0 || !strings.HasPrefix(r.stdout, "interleave "+npmTestVersion+"\n") {
		t.Fatalf("npx interleave --version: %s", r)
	}
	r := runIn(t, project, offline, "npx", "interleave", "run", "scenario.mjs", "--json")
	var sum struct {
		Outcome string `json:"outcome"`
		Message string `json:"message"`
	}
	if r.code != 1 || json.Unmarshal([]byte(r.stdout), &sum) != nil || sum.Outcome != "violation" || !strings.Contains(sum.Message, "Both increments must be retained") {
		t.Fatalf("npx interleave run scenario.mjs: want exit 1 and the lost update; %s", r)
	}

	r = runIn(t, project, offline, "node", "--test", "race.test.mjs")
	if r.code != 0 || !strings.Contains(r.stdout, "# pass 5") || !strings.Contains(r.stdout, "# fail 0") {
		t.Fatalf("node --test race.test.mjs: %s", r)
	}
	t.Logf("node --test race.test.mjs:\n%s", r.stdout)
}

// npmPlatform is npm's name for this machine: process.platform-process.arch.
func npmPlatform() string {
	goos, arch := runtime.GOOS, runtime.GOARCH
	if goos == "windows" {
		goos = "win32"
	}
	if arch == "amd64" {
		arch = "x64"
	}
	return goos + "-" + arch
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(data, v)
	}
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// npmRaceTest is a user's node:test file: the seed example's counter,
// explored as a file and as a scenario defined right here.
const npmRaceTest = `import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import pg from 'pg';
import { defineScenario, explore, replay, readRunArtifact, InterleaveError } from '@pginterleave/interleave';
import { incrementCounter } from './counter.mjs';

let ranHere = 0;
async function increment({ connectionString }) {
  ranHere++;
  const client = new pg.Client({ connectionString });
  await client.connect();
  try { return { value: await incrementCounter(client, 1) }; } finally { await client.end(); }
}

const counter = defineScenario({
  name: 'counter-in-a-test-file',
  async setup({ db }) {
    await db.query('CREATE TABLE counters (id int PRIMARY KEY, value int NOT NULL)');
    await db.query('INSERT INTO counters VALUES (1, 0)');
  },
  actors: { alice: increment, bob: increment },
  async invariant({ db, results }) {
    assert.equal(results.length, 2);
    const { rows } = await db.query('SELECT value FROM counters WHERE id = 1');
    assert.equal(rows[0].value, 2, 'Both increments must be retained');
  },
});

test('explore() of the scenario file finds the lost update', async () => {
  const r = await explore('scenario.mjs');
  assert.equal(r.schemaVersion, 1);
  assert.equal(r.outcome, 'violation');
  assert.equal(r.exitCode, 1);
  assert.match(r.message, /Both increments must be retained/);
});

test('explore() of a scenario defined in this file finds it, and replay() repeats it', async () => {
  const out = 'in-memory-failure.json';
  const r = await explore(counter, { out, maxRuns: 20 });
  assert.equal(r.outcome, 'violation');
  assert.match(r.message, /Both increments must be retained/);
  assert.ok(ranHere >= 2, 'the actors ran in this process');
  assert.equal(r.firstFailure.artifact, out);
  assert.deepEqual(r.firstFailure.order.map((s) => s.actor).sort(), ['alice', 'alice', 'bob', 'bob']);
  const artifact = await readRunArtifact(out);
  assert.equal(artifact.outcome.kind, 'violation');
  assert.equal(artifact.scenario.name, 'counter-in-a-test-file');
  const again = await replay(counter, artifact);
  assert.equal(again.outcome, 'violation');
  assert.equal(again.sameFailure, true);
});

test('what the functions throw decides the outcome, as for a scenario file', async () => {
  const sc = (actor, invariant) => defineScenario({
    name: 'outcomes',
    async setup({ db }) { await db.query('CREATE TABLE t (x int)'); },
    actors: { a: actor, b: async ({ connectionString }) => ({ url: connectionString.startsWith('postgres') }) },
    invariant,
  });
  const thrown = await explore(sc(async () => { throw new RangeError('boom'); }, async () => {}), { maxRuns: 1 });
  assert.equal(thrown.outcome, 'actor-error');
  assert.match(thrown.message, /RangeError: boom/);
  let aborted = 0;
  const seen = await explore(sc(async ({ signal }) => { signal.addEventListener('abort', () => aborted++); return { v: 7 }; },
    async ({ results }) => { assert.deepEqual(results.a.value, { v: 7 }); assert.deepEqual(results.b.value, { url: true }); }));
  assert.equal(seen.outcome, 'pass', seen.message);
  assert.equal(seen.exhausted, true);
  assert.ok(aborted >= seen.completed, 'each attempt fired the signal of actor a when it ended');
});

test('an option the original had and this does not is refused with what to do', async () => {
  await assert.rejects(explore(counter, { maxSteps: 10 }), /maxSteps has no counterpart in Interleave for Go: .*timeoutMs/);
});

test('a failure of the binary is an Error with its exit code and sentence', async () => {
  const err = await explore(counter, { out: 'missing-dir/x.json' }).then(() => null, (e) => e);
  assert.ok(err instanceof Error && err instanceof InterleaveError, String(err));
  assert.equal(err.exitCode, 2);
  assert.ok(err.message.length > 0 && !existsSync('missing-dir'));
});
`

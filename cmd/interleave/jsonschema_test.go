package main

// The JSON Schemas in docs/json are checked against real outputs of the
// interleave binary, errors included. The validator is
// github.com/santhosh-tekuri/jsonschema/v6: a maintained implementation of
// draft 2020-12 (it passes the official JSON-Schema-Test-Suite) that also
// checks each schema against the metaschema. Only this test imports it, so
// neither the library nor the interleave binary links it.

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var (
	schemasOnce sync.Once
	schemas     map[string]*jsonschema.Schema
	schemasErr  error
)

// loadSchemas compiles every docs/json/*.schema.json, keyed by its name
// without ".v1.schema.json".
func loadSchemas(t *testing.T) map[string]*jsonschema.Schema {
	t.Helper()
	schemasOnce.Do(func() {
		files, err := filepath.Glob("../../docs/json/*.schema.json")
		if err != nil || len(files) == 0 {
			schemasErr = err
			if schemasErr == nil {
				schemasErr = os.ErrNotExist
			}
			return
		}
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		schemas = map[string]*jsonschema.Schema{}
		for _, f := range files {
			abs, _ := filepath.Abs(f)
			sch, err := c.Compile(abs)
			if err != nil {
				schemasErr = err
				return
			}
			schemas[strings.TrimSuffix(filepath.Base(f), ".v1.schema.json")] = sch
		}
	})
	if schemasErr != nil {
		t.Fatalf("docs/json: %v", schemasErr)
	}
	return schemas
}

// validate checks that out is one JSON value that the named schema accepts.
func validate(t *testing.T, schema, out, what string) {
	t.Helper()
	sch, ok := loadSchemas(t)[schema]
	if !ok {
		t.Fatalf("%s: no schema docs/json/%s.v1.schema.json", what, schema)
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
	if err != nil {
		t.Fatalf("%s: stdout is not one JSON value: %v\n%s", what, err, out)
	}
	if err := sch.Validate(v); err != nil {
		t.Fatalf("%s: the output does not match docs/json/%s.v1.schema.json: %v\n%s", what, schema, err, out)
	}
}

// Every schema compiles against the draft 2020-12 metaschema, pins its
// schemaVersion and forbids fields it does not describe.
func TestSchemasCompile(t *testing.T) {
	s := loadSchemas(t)
	want := []string{"clean", "doctor", "error", "explain", "export", "init", "minimize", "postgres-install", "replay", "report", "summary", "trace", "version"}
	for _, n := range want {
		if s[n] == nil {
			t.Errorf("missing docs/json/%s.v1.schema.json", n)
		}
	}
	if len(s) != len(want) {
		t.Errorf("docs/json has %d schemas, the test knows %d: add the new one to this test and to a real output below", len(s), len(want))
	}
	for n, sch := range s {
		if sch.Properties["schemaVersion"] == nil || sch.Properties["schemaVersion"].Const == nil {
			t.Errorf("%s: schemaVersion is not pinned with const", n)
		}
		if sch.AdditionalProperties != false {
			t.Errorf("%s: additionalProperties is not false", n)
		}
	}
}

// Real outputs of every command with --json, each validated against its
// schema, errors included: a search that finds the counter race, its
// replay exact and guided, minimize, report, trace, export and verify,
// merge, the demo, a scenario file, doctor, version, init, clean, postgres
// install, and errors from cobra's flag parsing, the program build, the
// scenario program's own flag parsing and the commands themselves.
func TestJSONOutputs(t *testing.T) {
	bin := interleaveBinary(t)
	root, _ := filepath.Abs("../..")
	tmp := t.TempDir()
	art := filepath.Join(tmp, "failure.json")
	summary := filepath.Join(tmp, "summary.json")
	pgMajors := "/var/cache/interleave/pg-majors" // where scripts/pg-major keeps them (as root)
	if os.Geteuid() != 0 {
		pgMajors = filepath.Join(tmp, "pg-majors")
	}
	for _, c := range []struct {
		args   []string
		code   int
		schema string
		want   string // in stdout
	}{
		{[]string{"run", "./examples/counter", "--out", art, "--summary", summary, "--json"}, 1, "summary", `"outcome": "violation"`},
		{[]string{"run", "./examples/counter", "--out", art, "--json"}, 2, "error", "--force"},
		{[]string{"run", "./examples/counter", "--bogus", "--json"}, 2, "error", "unknown flag --bogus"},
		{[]string{"run", "./examples/counter", "--max-run", "3", "--json"}, 2, "error", "did you mean --max-runs?"},
		{[]string{"run", "./examples/counter", "--plan", "", "--json"}, 2, "error", "--plan is empty"},
		// --workers 0 is one per CPU, as its help says; the failure's order is in the JSON.
		{[]string{"run", "./examples/counter", "--workers", "0", "--json"}, 1, "summary", `"sql": "UPDATE counter SET n = $1 WHERE id = 1  -- $1=1 (int4?)"`},
		{[]string{"run", "./examples/nonexistent", "--json"}, 2, "error", "no such file or directory"},
		{[]string{"run", "scenario/testdata/counter.yaml", "--json"}, 1, "summary", `"scenario": "counter"`},
		{[]string{"run", filepath.Join(tmp, "x.spec"), "--json"}, 2, "error", "not JSON"},
		{[]string{"replay", "./examples/counter", art, "--json"}, 1, "replay", `"sameFailure": true`},
		{[]string{"replay", "./examples/counter-fixed", art, "--json"}, 3, "replay", `"outcome": "incompatible"`},
		{[]string{"replay", "./examples/counter-fixed", art, "--guided", "--json"}, 0, "replay", `"guided": true`},
		{[]string{"replay", "./examples/counter", filepath.Join(tmp, "missing.json"), "--json"}, 2, "error", "missing.json"},
		{[]string{"minimize", "./examples/counter", art, "--json"}, 1, "minimize", `"locallyMinimal": true`},
		{[]string{"merge", summary, "--json"}, 1, "summary", `"stopReason": "merged"`},
		{[]string{"merge", art, "--json"}, 2, "error", "is not an Interleave summary"},
		{[]string{"report", art, "--out", filepath.Join(tmp, "failure.html"), "--json"}, 0, "report", `"outcome": "violation"`},
		{[]string{"report", art, "--out", filepath.Join(tmp, "failure.html"), "--json"}, 2, "error", "--force"},
		{[]string{"trace", art, "--json"}, 0, "trace", `"releaseStep"`},
		{[]string{"trace", art, "--spec", "--json"}, 2, "error", "drop --json or --spec"},
		{[]string{"export", "./examples/counter", art, "--out", filepath.Join(tmp, "bundle"), "--json"}, 0, "export", `"mode": "bundle"`},
		{[]string{"export", "--verify", filepath.Join(tmp, "bundle"), "--json"}, 0, "export", `"ok": true`},
		{[]string{"export", "--verify", filepath.Join(tmp, "nothing"), "--json"}, 2, "error", "nothing"},
		{[]string{"demo", "--safe", "--json"}, 0, "summary", `"exhausted": true`},
		{[]string{"version", "--json"}, 0, "version", `"postgresMajors"`},
		{[]string{"version", "--bogus", "--json"}, 2, "error", "unknown flag --bogus"},
		{[]string{"version", "--jsn", "--json"}, 2, "error", "unknown flag --jsn; did you mean --json?"},
		{[]string{"init", filepath.Join(tmp, "go"), "--json"}, 0, "init", `"kind": "go"`},
		{[]string{"init", filepath.Join(tmp, "js"), "--js", "--json"}, 0, "init", `"kind": "js"`},
		{[]string{"init", filepath.Join(tmp, "yaml"), "--yaml", "--json"}, 0, "init", `"kind": "yaml"`},
		{[]string{"init", filepath.Join(tmp, "yaml"), "--yaml", "--json"}, 2, "error", "init never overwrites a file"},
		{[]string{"doctor", "--json"}, 0, "doctor", `"name": "lock-wait"`},
		{[]string{"doctor", "--docker", "--json"}, 2, "doctor", `"name": "docker"`},
		{[]string{"clean", "--dry-run", "--json"}, 0, "clean", `"dryRun": true`},
		{[]string{"postgres", "install", "13", "--cache-dir", pgMajors, "--json"}, 0, "postgres-install", `"major": 13`},
		{[]string{"postgres", "install", "x", "--json"}, 2, "error", "MAJOR must be a PostgreSQL major version"},
	} {
		env := []string{"DOCKER_HOST=unix://" + filepath.Join(tmp, "no-docker.sock")}
		r := runIn(t, root, env, bin, c.args...)
		what := "interleave " + strings.Join(c.args, " ")
		if r.code != c.code || !strings.Contains(r.stdout, c.want) {
			t.Fatalf("%s: want exit %d and %q in stdout, got %s", what, c.code, c.want, r)
		}
		validate(t, c.schema, r.stdout, what)
	}
	// --summary FILE is the summary too.
	b, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	validate(t, "summary", string(b), "--summary "+summary)
}

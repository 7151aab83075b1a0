package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/explain"
)

// checkThenInsertFiles is a scenario file whose actors are psql scripts
// that look for a user by email and insert it when it is absent, each
// statement in its own transaction: no isolation level stops the
// duplicate, a unique constraint would.
var checkThenInsertFiles = map[string]string{
	"signup.yaml": `name: check-then-insert
setup:
  sql: |
    CREATE TABLE users (id serial PRIMARY KEY, email text NOT NULL);
actors:
  - name: alice
    command: [psql, -X, -q, -v, ON_ERROR_STOP=1, -f, signup.sql]
  - name: bob
    command: [psql, -X, -q, -v, ON_ERROR_STOP=1, -f, signup.sql]
invariant:
  sql:
    - query: SELECT count(*) FROM users WHERE email = 'ann@example.com'
      expect: [["1"]]
      message: one sign-up per email
`,
	"signup.sql": `SELECT count(*) = 0 AS absent FROM users WHERE email = 'ann@example.com' \gset
\if :absent
INSERT INTO users (email) VALUES ('ann@example.com');
\endif
`,
}

func readArtifact(t *testing.T, path string) *artifact.Artifact {
	t.Helper()
	a, err := artifact.Read(path)
	if err != nil {
		t.Fatalf("read the artifact: %v", err)
	}
	return a
}

// checkRunNamesAnomaly checks what a run that saved a failure says of its
// anomaly (named adya, or "" for no cycle): the summary's line under the
// order, before the pointer to explain; the --summary JSON (valid against
// its schema); the artifact; and the report of the artifact, which embeds
// it to draw the cycle. It returns what the artifact keeps.
func checkRunNamesAnomaly(t *testing.T, dir, stdout, summary, art, name, adya string) *explain.Record {
	t.Helper()
	line := "Anomaly: none: no dependency cycle between transactions: "
	if name != "" {
		line = "Anomaly: " + name + " (Adya " + adya + "): "
	}
	at, why := strings.Index(stdout, "\n"+line), strings.Index(stdout, "\nWhy, and what would fix it: interleave explain ")
	if at < 0 || why < at || strings.Index(stdout, "The order that failed") > at {
		t.Fatalf("the run's summary does not name the anomaly (%q) under the order, before the pointer to explain:\n%s", line, stdout)
	}
	data, err := os.ReadFile(filepath.Join(dir, summary))
	if err != nil {
		t.Fatal(err)
	}
	validate(t, "summary", string(data), "run --summary")
	var s struct {
		FirstFailure struct {
			Anomaly *struct {
				Name, Adya, Sentence string
				Cycle                []struct{ Kind, From, To string }
			}
			AnomalyError string
		}
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	got := s.FirstFailure.Anomaly
	if got == nil || got.Name != name || got.Adya != adya || (len(got.Cycle) == 0) != (name == "") || s.FirstFailure.AnomalyError != "" {
		t.Fatalf("the summary's firstFailure.anomaly is %+v (%q); want %q (%s)\n%s", got, s.FirstFailure.AnomalyError, name, adya, data)
	}
	if !strings.Contains(stdout, got.Sentence[len(name):len(got.Sentence)/2]) {
		t.Errorf("the text summary and the JSON name it differently:\n%s\n%s", stdout, got.Sentence)
	}
	rec := readArtifact(t, filepath.Join(dir, art)).Explanation
	if rec == nil || rec.Anomaly.Name != name || rec.Anomaly.Sentence != got.Sentence || len(rec.Cycle) != len(got.Cycle) || rec.CriticalPair == nil || rec.Fix != nil {
		t.Fatalf("the artifact keeps %+v; want the anomaly the summary names, the reversals the run tried for a critical pair, and no fix (explain runs the level runs)", rec)
	}
	if !strings.Contains(stdout, "\n"+rec.CriticalPair.Line()+"\n") {
		t.Errorf("the text summary does not print the critical pair's line %q:\n%s", rec.CriticalPair.Line(), stdout)
	}
	for i, e := range rec.Cycle {
		if string(e.Kind) != got.Cycle[i].Kind || e.From != got.Cycle[i].From || e.To != got.Cycle[i].To {
			t.Fatalf("the artifact's cycle %+v differs from the summary's %+v", rec.Cycle, got.Cycle)
		}
	}
	// `interleave report` embeds it for the page to draw (the drawing
	// itself: report/browsertest TestReportDrawsTheCycle).
	bin := interleaveBinary(t)
	if r := runIn(t, dir, nil, bin, "report", art, "--out", art+".html"); r.code != 0 {
		t.Fatalf("report: %s", r)
	}
	page, err := os.ReadFile(filepath.Join(dir, art+".html"))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(rec.Anomaly.Name)
	if !strings.Contains(string(page), "\"explanation\": {\n    \"anomaly\": {\n      \"name\": "+string(want)) {
		t.Errorf("the report of %s does not embed its explanation", art)
	}
	return rec
}

// TestRunSaysNoCycleForCheckThenInsert: a check, then an insert, each in
// its own transaction, is a failure no isolation level explains, and the
// run says so under the order (not a lost update or a write skew).
func TestRunSaysNoCycleForCheckThenInsert(t *testing.T) {
	if _, err := exec.LookPath("psql"); err != nil {
		t.Fatalf("this test's actors are psql scripts and psql is not on PATH (%v): install postgresql-client", err)
	}
	bin := interleaveBinary(t)
	dir := t.TempDir()
	for name, text := range checkThenInsertFiles {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := runIn(t, dir, nil, bin, "run", "signup.yaml", "--out", "f.json", "--summary", "s.json")
	if r.code != 1 {
		t.Fatalf("run: want exit 1: %s", r)
	}
	rec := checkRunNamesAnomaly(t, dir, r.stdout, "s.json", "f.json", "", "")
	if !strings.HasPrefix(rec.Anomaly.Sentence, explain.NoCycle) {
		t.Errorf("sentence %q", rec.Anomaly.Sentence)
	}
}

// TestRunNamesTheCounter: the README's counter reads, then writes back,
// each in its own autocommit statement, so no transaction spans both and
// no dependency cycle joins them: the run says so (an isolation level
// cannot help; one atomic UPDATE or FOR UPDATE in a transaction does).
func TestRunNamesTheCounter(t *testing.T) {
	bin := interleaveBinary(t)
	root, _ := filepath.Abs("../..")
	dir := t.TempDir()
	r := runIn(t, root, nil, bin, "run", "./examples/counter", "--out", filepath.Join(dir, "f.json"), "--summary", filepath.Join(dir, "s.json"))
	if r.code != 1 {
		t.Fatalf("run: want exit 1: %s", r)
	}
	checkRunNamesAnomaly(t, dir, r.stdout, "s.json", "f.json", "", "")
}

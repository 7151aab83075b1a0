package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// lostUpdateFiles is a scenario file whose actors are psql scripts that
// read a balance and write it back in one READ COMMITTED transaction.
var lostUpdateFiles = map[string]string{
	"lost.yaml": `name: lost-update
setup:
  sql: |
    CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL);
    INSERT INTO accounts VALUES (1, 100);
actors:
  - name: alice
    command: [psql, -X, -q, -v, ON_ERROR_STOP=1, -f, withdraw.sql]
  - name: bob
    command: [psql, -X, -q, -v, ON_ERROR_STOP=1, -f, withdraw.sql]
invariant:
  sql:
    - query: SELECT balance FROM accounts WHERE id = 1
      expect: [["80"]]
      message: two withdrawals of 10 from 100 must leave 80
`,
	"withdraw.sql": `BEGIN;
SELECT balance - 10 AS next FROM accounts WHERE id = 1 \gset
UPDATE accounts SET balance = :next WHERE id = 1;
COMMIT;
`,
}

type explainJSON struct {
	Anomaly struct{ Name, Adya string }
	Cycle   []struct{ Kind string }
	Pair    struct {
		Found                   bool
		FirstActor, SecondActor string
		FirstSQL                string `json:"firstSql"`
		SecondSQL               string `json:"secondSql"`
	} `json:"criticalPair"`
	Fix struct{ Class, Advice string }
}

// TestExplainLostUpdate records a lost update made by two psql scripts,
// explains it (text, --json against its schema, the artifact alone),
// minimizes it and explains the result: the same anomaly and critical
// pair.
func TestExplainLostUpdate(t *testing.T) {
	if _, err := exec.LookPath("psql"); err != nil {
		t.Fatalf("this test's actors are psql scripts and psql is not on PATH (%v): install postgresql-client", err)
	}
	bin := interleaveBinary(t)
	dir := t.TempDir()
	for name, text := range lostUpdateFiles {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := runIn(t, dir, nil, bin, "run", "lost.yaml", "--out", "f.json", "--summary", "s.json")
	if r.code != 1 {
		t.Fatalf("run: want exit 1: %s", r)
	}
	// The run names the anomaly itself: in its summary, --json and the
	// artifact (checkRunNamesAnomaly), before explain runs anything.
	saved := checkRunNamesAnomaly(t, dir, r.stdout, "s.json", "f.json", "lost update", "G-single")
	runOut := r.stdout
	r = runIn(t, dir, nil, bin, "explain", "lost.yaml", "f.json", "--json")
	if r.code != 0 {
		t.Fatalf("explain --json: %s", r)
	}
	validate(t, "explain", r.stdout, "explain --json")
	var x explainJSON
	if err := json.Unmarshal([]byte(r.stdout), &x); err != nil {
		t.Fatal(err)
	}
	if x.Anomaly.Name != "lost update" || x.Anomaly.Adya != "G-single" || len(x.Cycle) != 2 || !x.Pair.Found || x.Fix.Class != "repeatable-read" {
		t.Fatalf("explain --json: %+v\n%s", x, r.stdout)
	}
	if saved.Anomaly.Name != x.Anomaly.Name || saved.Anomaly.Adya != x.Anomaly.Adya || len(saved.Cycle) != len(x.Cycle) {
		t.Fatalf("the run named %+v, explain %+v", saved.Anomaly, x.Anomaly)
	}
	if !strings.HasPrefix(x.Pair.FirstSQL, "SELECT balance") || x.Pair.SecondSQL != "COMMIT;" || x.Pair.FirstActor == x.Pair.SecondActor {
		t.Fatalf("critical pair %+v: want one actor's read before the other's COMMIT", x.Pair)
	}
	// The run found the same critical pair itself (a few reversals after
	// it saved the failure), and says so in its summary and --summary.
	if p := saved.CriticalPair; p == nil || !p.Found || p.FirstSQL != x.Pair.FirstSQL || p.SecondSQL != x.Pair.SecondSQL || p.FirstActor != x.Pair.FirstActor {
		t.Fatalf("the run's critical pair %+v; explain's %+v", saved.CriticalPair, x.Pair)
	}
	if line := saved.CriticalPair.Line(); !strings.Contains(runOut, "\n"+line+"\n") {
		t.Fatalf("the run's summary does not print %q:\n%s", line, runOut)
	}
	var sum struct {
		FirstFailure struct {
			Anomaly struct {
				CriticalPair *struct{ Found bool } `json:"criticalPair"`
			}
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "s.json")); err != nil || json.Unmarshal(b, &sum) != nil || sum.FirstFailure.Anomaly.CriticalPair == nil || !sum.FirstFailure.Anomaly.CriticalPair.Found {
		t.Fatalf("--summary's firstFailure.anomaly has no critical pair found (%v)", err)
	}
	// --critical-pair 0 runs none: the anomaly alone.
	if r := runIn(t, dir, nil, bin, "run", "lost.yaml", "--out", "g.json", "--critical-pair", "0"); r.code != 1 || strings.Contains(r.stdout, "Critical pair:") || !strings.Contains(r.stdout, "Anomaly: lost update") {
		t.Fatalf("run --critical-pair 0: want exit 1, the anomaly and no critical pair: %s", r)
	}
	if g := readArtifact(t, filepath.Join(dir, "g.json")); g.Explanation == nil || g.Explanation.CriticalPair != nil {
		t.Fatalf("run --critical-pair 0 kept %+v", g.Explanation)
	}

	// The artifact alone: the program it names, relative to here.
	r = runIn(t, dir, nil, bin, "explain", "f.json", "--report", "r.html")
	for _, want := range []string{"Anomaly: lost update (Adya G-single).", "Critical pair: step", "REPEATABLE READ prevents this if the code retries on 40001"} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Fatalf("explain f.json: want %q: %s", want, r)
		}
	}
	if page, err := os.ReadFile(filepath.Join(dir, "r.html")); err != nil || !strings.Contains(string(page), `"explanation":{`) || !strings.Contains(string(page), `"name":"lost update"`) {
		t.Fatalf("explain --report wrote no report with the explanation: %v", err)
	}

	// Minimize keeps the critical pair.
	if r := runIn(t, dir, nil, bin, "minimize", "lost.yaml", "f.json", "--out", "m.json"); r.code != 1 {
		t.Fatalf("minimize: %s", r)
	}
	r = runIn(t, dir, nil, bin, "explain", "lost.yaml", "m.json", "--json")
	var m explainJSON
	if err := json.Unmarshal([]byte(r.stdout), &m); r.code != 0 || err != nil {
		t.Fatalf("explain m.json: %v %s", err, r)
	}
	if m.Anomaly != x.Anomaly || m.Pair != x.Pair || m.Fix.Class != x.Fix.Class {
		t.Fatalf("the minimized order explains differently:\n%+v\nwas\n%+v", m, x)
	}
	// The minimized artifact names the same anomaly, from its own order.
	min := readArtifact(t, filepath.Join(dir, "m.json"))
	if min.Explanation == nil || min.Explanation.Anomaly != saved.Anomaly || len(min.Explanation.Cycle) != len(saved.Cycle) {
		t.Fatalf("the minimized artifact keeps %+v; the run's kept %+v", min.Explanation, saved)
	}
	if p := min.Explanation.CriticalPair; p == nil || !p.Found || p.FirstSQL != x.Pair.FirstSQL || p.SecondSQL != x.Pair.SecondSQL {
		t.Fatalf("the minimized artifact's critical pair %+v; explain's %+v", min.Explanation.CriticalPair, x.Pair)
	}
}

// TestReplayPauseAt pauses a replay after step 4, looks at the sessions
// with the psql command it prints (both transactions are open), and lets
// it go on with Enter: the recorded failure then happens.
func TestReplayPauseAt(t *testing.T) {
	if _, err := exec.LookPath("psql"); err != nil {
		t.Fatalf("this test's actors are psql scripts and psql is not on PATH (%v): install postgresql-client", err)
	}
	bin := interleaveBinary(t)
	dir := t.TempDir()
	for name, text := range lostUpdateFiles {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if r := runIn(t, dir, nil, bin, "run", "lost.yaml", "--out", "f.json"); r.code != 1 {
		t.Fatalf("run: want exit 1: %s", r)
	}
	cmd := exec.Command(bin, "replay", "lost.yaml", "f.json", "--pause-at", "4")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TEST_DATABASE_URL=")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(stdout)
	var shown strings.Builder
	for sc.Scan() {
		shown.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), "Press Enter") {
			break
		}
	}
	text := shown.String()
	psql := regexp.MustCompile(`(?m)^  (psql -h \S+ -p \d+ -U \S+ \S+)$`).FindStringSubmatch(text)
	pids := regexp.MustCompile(`backend pid (\d+)`).FindAllStringSubmatch(text, -1)
	if !strings.HasPrefix(text, "Paused after step 4 ") || psql == nil || len(pids) != 2 {
		t.Fatalf("the pause shows:\n%s\nstderr: %s", text, stderr.String())
	}
	// Look as a person would: both sessions are inside their transactions.
	args := append(strings.Fields(psql[1])[1:], "-X", "-A", "-t", "-c", "SELECT count(*) FROM pg_stat_activity WHERE state = 'idle in transaction' AND pid IN ("+pids[0][1]+", "+pids[1][1]+")")
	out, err := exec.Command("psql", args...).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "2" {
		t.Fatalf("psql %v: %v: %s (want 2 sessions idle in transaction)\n%s", args, err, out, text)
	}
	if !strings.Contains(text, "idle in transaction") {
		t.Fatalf("the pause does not show the transaction state:\n%s", text)
	}
	stdin.Write([]byte("\n"))
	done := make(chan error, 1)
	go func() {
		for sc.Scan() {
			shown.WriteString(sc.Text() + "\n")
		}
		done <- cmd.Wait()
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatalf("the replay did not finish after Enter:\n%s", shown.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(shown.String(), "the same failure as recorded") {
		t.Fatalf("after the pause: exit %d, want 1 and the same failure:\n%s\nstderr: %s", code, shown.String(), stderr.String())
	}
}

package scenario

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/interleavetest"
	"github.com/pginterleave/interleave/internal/testkit/fixture"
	"github.com/pginterleave/interleave/internal/testkit/testenv"
	"github.com/pginterleave/interleave/pgserver"
)

const counterSetupSQL = fixture.CounterSetup + ";"

// pgxCounter is the counter whose read passes the id as a text parameter
// ("1" for $1) and whose write sends n+1 as a binary int4 parameter: the
// two kinds of value a written spec must turn into literals.
func pgxCounter() interleave.Scenario {
	inc := func(ctx context.Context, cs string) (any, error) {
		c, err := pgx.Connect(ctx, cs)
		if err != nil {
			return nil, err
		}
		defer c.Close(ctx)
		var n int
		if err := c.QueryRow(ctx, "SELECT n FROM counter WHERE id = $1", "1").Scan(&n); err != nil {
			return nil, err
		}
		_, err = c.Exec(ctx, "UPDATE counter SET n = $1 WHERE id = 1", n+1)
		return n, err
	}
	sc := fixture.Counter(false)
	sc.Actors = []interleave.Actor{{Name: "alice", Run: inc}, {Name: "bob", Run: inc}}
	return sc
}

// A recorded failure written as a spec runs under the spec runner in the
// recorded order and loses the update again.
func TestSpecFromArtifactReplaysTheOrder(t *testing.T) {
	ctx := fixture.Context(t)
	res, err := interleave.Explore(ctx, pgxCounter(), opts(interleave.Options{}))
	if err != nil || res.Outcome != interleave.OutcomeViolation {
		t.Fatalf("record: %v %v", err, res)
	}
	text, notes := SpecFromArtifact(res.Artifact, counterSetupSQL)
	if len(notes) != 0 {
		t.Errorf("notes for a spec that needs none: %v", notes)
	}
	for _, want := range []string{
		"step alice_1 { SELECT n FROM counter WHERE id = '1' }",  // text parameter, quoted
		"step alice_2 { UPDATE counter SET n = 1 WHERE id = 1 }", // binary int4, as its integer
		"permutation alice_1 bob_1 alice_2 bob_2\n",
	} {
		if !strings.Contains(text, want) {
			t.Fatalf("spec lacks %q:\n%s", want, text)
		}
	}
	// The tester's spec has no invariant: add a step that reads the result.
	spec, err := ParseSpec("counter.spec", []byte(strings.Replace(text, "permutation alice_1 bob_1 alice_2 bob_2",
		"session check\nstep check { SELECT n FROM counter }\npermutation alice_1 bob_1 alice_2 bob_2 check", 1)))
	if err != nil {
		t.Fatalf("the written spec does not parse: %v\n%s", err, text)
	}
	var out bytes.Buffer
	if _, err := RunSpec(ctx, spec, opts(interleave.Options{}), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "step check: SELECT n FROM counter\nn\n-\n1\n(1 row)") {
		t.Fatalf("the spec did not lose the update in the recorded order:\n%s", out.String())
	}
}

func TestSpecFromArtifactSaysWhatItCannotCarry(t *testing.T) {
	ctx := fixture.Context(t)
	res, err := interleave.Explore(ctx, pgxCounter(), opts(interleave.Options{}))
	if err != nil || res.Artifact == nil {
		t.Fatalf("record: %v %v", err, res)
	}
	a := res.Artifact
	for i := range a.Units {
		if a.Units[i].Actor == "bob" && len(a.Units[i].Params) > 0 && strings.HasPrefix(a.Units[i].SQL[0], "UPDATE") {
			a.Units[i].Params[0][0] = artifact.Param{Binary: true, Hex: "0102030405", Size: 5}
			a.Units[i].Pair = true
		}
	}
	_, notes := SpecFromArtifact(a, "")
	joined := strings.Join(notes, "\n")
	for _, want := range []string{"setup block is empty", "parameter $1 (\\x0102030405 (binary)) has no exact literal", "released in a pair"} {
		if !strings.Contains(joined, want) {
			t.Errorf("notes lack %q:\n%s", want, joined)
		}
	}
}

// isolationTester finds PostgreSQL's own isolationtester next to the server
// binaries (Debian ships it in postgresql-client-N, the npm packages in
// lib/postgresql/pgxs) and the environment it runs in: with the npm
// packages, their libpq (the tester needs its own major's).
func isolationTester(t *testing.T) (string, []string) {
	bin, err := pgserver.FindBinDir("")
	if err != nil {
		t.Fatalf("PostgreSQL's binaries are needed: %v", err)
	}
	if real, err := filepath.EvalSymlinks(filepath.Join(bin, "postgres")); err == nil {
		bin = filepath.Dir(real) // /usr/local/bin/postgres -> /usr/lib/postgresql/15/bin
	}
	for _, rel := range []string{"../lib/pgxs/src/test/isolation/isolationtester", "../lib/postgresql/pgxs/src/test/isolation/isolationtester"} {
		p := filepath.Join(bin, rel)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			env := os.Environ()
			if lib := filepath.Join(bin, "..", "lib"); fileExists(filepath.Join(lib, "libpq.so.5")) {
				env = append(env, "LD_LIBRARY_PATH="+lib)
			}
			return p, env
		}
	}
	testenv.Require(t, "PostgreSQL's isolationtester", fmt.Errorf("not found beside %s", bin),
		"install it beside the server (Debian: apt-get install -y postgresql-client-N for server major N; scripts/ensure-deps isolationtester)")
	return "", nil
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// The written spec runs under PostgreSQL's own isolationtester, which loses
// the update in the recorded order and prints exactly what Interleave's spec
// runner prints for the same file.
func TestSpecFromArtifactRunsUnderPostgreSQLsIsolationTester(t *testing.T) {
	tester, env := isolationTester(t)
	ctx := fixture.Context(t)
	res, err := interleave.Explore(ctx, pgxCounter(), opts(interleave.Options{}))
	if err != nil || res.Outcome != interleave.OutcomeViolation {
		t.Fatalf("record: %v %v", err, res)
	}
	text, _ := SpecFromArtifact(res.Artifact, counterSetupSQL)
	text = strings.Replace(text, "permutation alice_1 bob_1 alice_2 bob_2",
		"session check\nstep check { SELECT n FROM counter }\npermutation alice_1 bob_1 alice_2 bob_2 check", 1)
	file := filepath.Join(t.TempDir(), "counter.spec")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}

	theirs := runIsolationTester(t, ctx, tester, env, file)
	if !strings.Contains(theirs, "step check: SELECT n FROM counter\nn\n-\n1\n(1 row)") {
		t.Fatalf("PostgreSQL's isolationtester did not lose the update in the recorded order:\n%s", theirs)
	}

	spec, err := LoadSpec(file)
	if err != nil {
		t.Fatal(err)
	}
	var ours bytes.Buffer
	if _, err := RunSpec(ctx, spec, opts(interleave.Options{}), &ours); err != nil {
		t.Fatal(err)
	}
	if ours.String() != theirs {
		t.Fatalf("Interleave's spec runner and PostgreSQL's isolationtester print different things:\n%s", unifiedDiff("isolationtester", "interleave", theirs, ours.String()))
	}
}

// runIsolationTester runs PostgreSQL's isolationtester on the spec file at
// path against a fresh database and returns what it prints.
func runIsolationTester(t *testing.T, ctx context.Context, tester string, env []string, path string) string {
	t.Helper()
	srv := interleavetest.Server()
	db, err := srv.CreateDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.DropDatabase(context.Background(), db)
	in, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	cmd := exec.CommandContext(ctx, tester, srv.ConnString(db))
	// pg_isolation_regress runs the tester with these (its expected files
	// assume them), as Interleave's spec runner does.
	cmd.Env = append(env, "PGDATESTYLE=Postgres, MDY", "PGTZ=PST8PDT")
	cmd.Stdin = in
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("isolationtester %s: %v\n%s\n%s", path, err, stderr.String(), out.String())
	}
	return out.String()
}

// Every spec of ../shared/pg-isolation, run by PostgreSQL's own
// isolationtester of the server's major version and by Interleave's spec
// runner: the two outputs are the same byte for byte, including the three
// specs whose stored expected files are in the pre-14 format.
func TestSpecsMatchPostgreSQLsIsolationTesterLive(t *testing.T) {
	tester, env := isolationTester(t)
	names, err := filepath.Glob(filepath.Join(isolationData(t), "specs", "*.spec"))
	if err != nil || len(names) != 16 {
		t.Fatalf("want the 16 specs in %s: %v %v", isolationData(t), names, err)
	}
	for _, path := range names {
		name := strings.TrimSuffix(filepath.Base(path), ".spec")
		t.Run(name, func(t *testing.T) {
			ctx := fixture.Context(t)
			theirs := runIsolationTester(t, ctx, tester, env, path)
			spec, err := LoadSpec(path)
			if err != nil {
				t.Fatal(err)
			}
			var ours bytes.Buffer
			if code, err := RunSpec(ctx, spec, opts(interleave.Options{}), &ours); err != nil || code != 0 {
				t.Fatalf("exit %d: %v\n%s", code, err, ours.String())
			}
			if ours.String() != theirs {
				t.Fatalf("differs from PostgreSQL's isolationtester:\n%s", unifiedDiff("isolationtester", "interleave", theirs, ours.String()))
			}
		})
	}
}

// Actor names that are the same identifier get distinct sessions, and the
// spec parses.
func TestSpecFromArtifactKeepsSessionNamesApart(t *testing.T) {
	a := &artifact.Artifact{}
	for i, actor := range []string{"a-b", "a_b", "1st"} {
		a.Units = append(a.Units, artifact.Unit{Actor: actor, Unit: 0, SQL: []string{fmt.Sprintf("SELECT %d", i)}, Completed: true})
		a.Schedule.Decisions = append(a.Schedule.Decisions, artifact.Decision{Release: []artifact.UnitRef{{Actor: actor}}})
	}
	text, _ := SpecFromArtifact(a, "CREATE TABLE t (i int)")
	if _, err := ParseSpec("x.spec", []byte(text)); err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	for _, want := range []string{"session a_b\n", "session a_b2\n", "session a_1st\n", "permutation a_b_1 a_b2_1 a_1st_1\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("spec lacks %q:\n%s", want, text)
		}
	}
}

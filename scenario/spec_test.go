package scenario

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/internal/testkit/fixture"
	"github.com/pginterleave/interleave/internal/testkit/testenv"
)

// isolationData is the directory of PostgreSQL's isolation specs and the
// tester's expected outputs: PostgreSQL's own test data, unchanged, kept
// beside the repository (../shared/pg-isolation, with its provenance and
// licence in its README.md), never copied into it.
func isolationData(t testing.TB) string {
	t.Helper()
	return testenv.Shared(t, "pg-isolation", "README.md", "specs/deadlock-simple.spec", "expected/deadlock-simple.out")
}

// oldFormat are the three expected files in the pre-PostgreSQL-14 result
// layout (note 2 of the README): a current tester prints their result rows
// differently, so they are compared on outcomes only.
var oldFormat = map[string]bool{"temporal-range-integrity": true, "total-cash": true, "insert-conflict-do-update": true}

func specPath(t testing.TB, name string) string {
	return filepath.Join(isolationData(t), "specs", name+".spec")
}

func expectedOutput(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(isolationData(t), "expected", name+".out"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseSpecsOfPostgreSQL(t *testing.T) {
	for name, want := range map[string]struct{ sessions, perms int }{
		"deadlock-simple": {2, 1}, "multiple-row-versions": {4, 1}, "receipt-report": {3, 0},
		"insert-conflict-do-nothing": {2, 2}, "simple-write-skew": {2, 0},
	} {
		s, err := LoadSpec(specPath(t, name))
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Sessions) != want.sessions || len(s.Permutations) != want.perms || s.Name != name {
			t.Fatalf("%s: %d sessions, %d permutations", name, len(s.Sessions), len(s.Permutations))
		}
	}
	s, _ := LoadSpec(specPath(t, "deadlock-simple"))
	if got := s.Sessions[0]; got.Name != "s1" || got.Setup != "BEGIN;" || got.Steps[1].Name != "s1ae" || got.Steps[1].SQL != "LOCK TABLE a1 IN ACCESS EXCLUSIVE MODE;" {
		t.Fatalf("session s1: %+v %+v", got, got.Steps[1])
	}
	if s.Setup[0] != "\n  CREATE TABLE a1 ();\n" || s.Teardown != "\n  DROP TABLE a1;\n" {
		t.Fatalf("setup %q teardown %q", s.Setup, s.Teardown)
	}
}

func TestParseSpecGrammar(t *testing.T) {
	src := `# comment
setup { CREATE TABLE t (a int); }
setup	{	INSERT INTO t VALUES (1);  }
teardown { DROP TABLE t; }
session "s ""1"""
setup { BEGIN; }
step "a b" { SELECT 1; }
step s1b {
  SELECT 2;
}
teardown { COMMIT; }
session s2
step s2a { SELECT 3; }   # trailing comment
permutation "a b" s2a(*) s1b(s2a, s2a notices 2)
permutation s2a
`
	s, err := ParseSpec("x.spec", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Setup) != 2 || s.Setup[1] != "INSERT INTO t VALUES (1);" || s.Teardown != "DROP TABLE t;" {
		t.Fatalf("setup %q teardown %q", s.Setup, s.Teardown)
	}
	s1 := s.Sessions[0]
	if s1.Name != `s "1"` || s1.Setup != "BEGIN;" || s1.Teardown != "COMMIT;" || s1.Steps[0].Name != "a b" {
		t.Fatalf("session 1: %+v", s1)
	}
	if s1.Steps[1].SQL != "\n  SELECT 2;\n" { // newlines kept, as the tester keeps them
		t.Fatalf("step s1b: %q", s1.Steps[1].SQL)
	}
	p := s.Permutations[0].Steps
	if len(p) != 3 || !p[1].Blockers[0].Once || p[2].Blockers[0].Step != "s2a" || p[2].Blockers[1].Notices != 2 || p[2].Blockers[1].String() != "s2a notices 2" {
		t.Fatalf("permutation: %+v", p)
	}
	if len(s.Permutations) != 2 || s.Permutations[1].Line != 15 || s.Permutations[1].Col != 1 {
		t.Fatalf("permutations %+v", s.Permutations)
	}
}

func TestParseSpecReportsPositionedMistakes(t *testing.T) {
	ok := "session s1\nstep a { SELECT 1; }\nsession s2\nstep b { SELECT 2; }\n"
	for _, c := range []struct{ src, want string }{
		{"", "x.spec:1:1: syntax error: expected session (a spec has at least one session), found the end of the file"},
		{"setup { x ", "x.spec:1:7: unterminated sql block"},
		{"session \"s1\nstep a { }", "x.spec:1:12: unexpected newline in quoted identifier"},
		{"session s1\nstep a { SELECT 1; }\nstep a { SELECT 2; }\n", "x.spec:3:1: duplicate step name: a"},
		{ok + "permutation a c\n", `x.spec:5:15: undefined step "c" specified in permutation`},
		{ok + "permutation a(zz) b\n", `x.spec:5:13: undefined blocking step "zz" referenced in permutation step a`},
		{ok + "permutation a(b notices x)\n", "x.spec:5:25: syntax error: expected a number after notices, found name \"x\""},
		{ok + "permutation a(b\n", "x.spec:6:1: syntax error: expected ',' or ')' in the markers of step a, found the end of the file"},
		{"session s1\nsetup { BEGIN; }\n", "x.spec:3:1: syntax error: expected step (session s1 has no steps), found the end of the file"},
		{"session s1\nstep a SELECT 1;\n", `x.spec:2:8: syntax error: expected the step's SQL block { ... }, found name "SELECT"`},
		{ok + "setup { SELECT 1; }\n", "x.spec:5:1: syntax error: expected session, permutation or the end of the file, found keyword setup"},
		{"session s1 step a { SELECT 1; } ; ", "x.spec:1:33: syntax error: unexpected character ';'"},
		{ok + "session s1\nstep c { SELECT 3; }\n", "x.spec:5:1: two sessions are named s1"},
		{nineSessions(), "x.spec:17:1: session s9 is the 9th; interleave runs at most 8 sessions"},
	} {
		_, err := ParseSpec("x.spec", []byte(c.src))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("spec %q:\n  error %v\n  want  %s", c.src, err, c.want)
		}
	}
}

func nineSessions() string {
	var b strings.Builder
	for i := 1; i <= 9; i++ {
		b.WriteString("session s" + string(rune('0'+i)) + "\nstep st" + string(rune('0'+i)) + " { SELECT 1; }\n")
	}
	return b.String()
}

// outcomes keeps what the tester's output says happened, without the result
// tables: the header, permutations, step lines (with <waiting ...> and
// <... completed>) and error lines.
func outcomes(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "Parsed test spec") || strings.HasPrefix(l, "starting permutation:") || strings.HasPrefix(l, "step ") || strings.HasPrefix(l, "ERROR:") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// All 16 specs against the tester's expected output: the deadlock, the
// blocking inserts and every interleaving of the specs without permutation
// lines. Thirteen must match byte for byte. Three expected files
// (temporal-range-integrity, total-cash, insert-conflict-do-update) are in
// the pre-PostgreSQL-14 result format (note 2 of the data's README): they
// are compared on outcomes (permutation headers, step lines, waiting and
// completed markers, ERROR lines), not on result tables, and are checked to
// differ from the current format only in those tables.
func TestSpecsMatchTheTestersExpectedOutput(t *testing.T) {
	names, err := filepath.Glob(filepath.Join(isolationData(t), "specs", "*.spec"))
	if err != nil || len(names) != 16 {
		t.Fatalf("want the 16 specs in %s: %v %v", isolationData(t), names, err)
	}
	start := time.Now()
	exact := 0
	for _, path := range names {
		name := strings.TrimSuffix(filepath.Base(path), ".spec")
		t.Run(name, func(t *testing.T) {
			spec, err := LoadSpec(path)
			if err != nil {
				t.Fatal(err)
			}
			began := time.Now()
			var out bytes.Buffer
			code, err := RunSpec(fixture.Context(t), spec, opts(interleave.Options{}), &out)
			if err != nil || code != 0 {
				t.Fatalf("exit %d: %v\n%s", code, err, out.String())
			}
			want, got := expectedOutput(t, name), out.String()
			switch {
			case got == want:
				exact++
				t.Logf("matches byte for byte (%v)", time.Since(began).Round(time.Millisecond))
			case oldFormat[name] && outcomes(got) == outcomes(want):
				t.Logf("matches on outcomes; result tables in the old format (%v)", time.Since(began).Round(time.Millisecond))
			default:
				t.Fatalf("differs from the expected output:\n%s", unifiedDiff("expected", "interleave", want, got))
			}
		})
	}
	t.Logf("%d of %d specs match byte for byte, %d on outcomes; %v in all", exact, len(names), len(oldFormat), time.Since(start).Round(time.Second))
	if exact != len(names)-len(oldFormat) {
		t.Errorf("%d specs match byte for byte, want %d", exact, len(names)-len(oldFormat))
	}
}

// In deadlock-simple the scheduler releases s1ae, PostgreSQL reports it
// waiting on s2's lock (the tester's <waiting ...>), s2ae's upgrade is the
// deadlock, and s1ae completes after it.
func TestDeadlockSimpleRecordsTheLockWait(t *testing.T) {
	spec, err := LoadSpec(specPath(t, "deadlock-simple"))
	if err != nil {
		t.Fatal(err)
	}
	perms, _ := spec.permutationsToRun()
	o := opts(interleave.Options{})
	pool := newDBPool(o.Server.Use, false)
	defer pool.Close()
	o.Server.Use = pool
	out, code, err := spec.runPermutation(fixture.Context(t), perms[0], o)
	if err != nil || code != 0 {
		t.Fatalf("exit %d: %v", code, err)
	}
	// s1's units: setup (BEGIN), s1as, s1ae, s1c.
	s1ae, s2ae := out.units[0][2], out.units[1][2]
	if len(s1ae.LockWaits) == 0 || len(s1ae.LockWaits[0].BlockingActors) != 1 || s1ae.LockWaits[0].BlockingActors[0] != "s2" {
		t.Fatalf("s1ae: lock waits %+v, want one on s2", s1ae.LockWaits)
	}
	if len(s2ae.LockWaits) != 0 || s2ae.SQLState != "40P01" || s2ae.CompletedUS < s1ae.ReleasedUS {
		t.Fatalf("s2ae: %+v", s2ae)
	}
	var b strings.Builder
	out.render(&b)
	for _, want := range []string{
		"step s1ae: LOCK TABLE a1 IN ACCESS EXCLUSIVE MODE; <waiting ...>\nstep s2ae: LOCK TABLE a1 IN ACCESS EXCLUSIVE MODE;\nERROR:  deadlock detected\nstep s1ae: <... completed>\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Fatalf("output lacks\n%s\n%s", want, b.String())
		}
	}
}

// With --expected, RunSpec says whether the output matches, and prints a
// unified diff (exit 1) when it does not.
func TestRunSpecComparesWithTheExpectedFile(t *testing.T) {
	spec, err := LoadSpec(specPath(t, "read-write-unique"))
	if err != nil {
		t.Fatal(err)
	}
	spec.Expected = filepath.Join(isolationData(t), "expected", "read-write-unique.out")
	var out bytes.Buffer
	code, err := RunSpec(fixture.Context(t), spec, opts(interleave.Options{}), &out)
	if err != nil || code != 0 || !strings.Contains(out.String(), "read-write-unique: the output matches") {
		t.Fatalf("exit %d, %v:\n%s", code, err, out.String())
	}
	wrong := filepath.Join(t.TempDir(), "wrong.out")
	os.WriteFile(wrong, []byte(strings.Replace(expectedOutput(t, "read-write-unique"), "step w2: <... completed>\n", "step w2: <... completed>\nERROR:  something else\n", 1)), 0o644)
	spec.Expected = wrong
	out.Reset()
	code, err = RunSpec(fixture.Context(t), spec, opts(interleave.Options{}), &out)
	if err != nil || code != 1 {
		t.Fatalf("exit %d, %v:\n%s", code, err, out.String())
	}
	for _, want := range []string{"--- " + wrong, "+++ interleave", "@@ -15,7 +15,6 @@", "-ERROR:  something else\n", "the output differs"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("diff lacks %q:\n%s", want, out.String())
		}
	}
}

func TestResultTablesInTheTestersFormat(t *testing.T) {
	s := func(v string) *string { return &v }
	for _, c := range []struct {
		rs   ResultSet
		want string
	}{
		{ResultSet{Columns: []string{"i"}, Rows: [][]*string{}}, "i\n-\n(0 rows)\n\n"},
		{ResultSet{Columns: []string{"i"}, Rows: [][]*string{{s("42")}}}, " i\n--\n42\n(1 row)\n\n"},
		{ResultSet{Columns: []string{"key", "val"}, Rows: [][]*string{{s("1"), s("donothing1")}}}, "key|val       \n---+----------\n  1|donothing1\n(1 row)\n\n"},
		{ResultSet{Columns: []string{"id", "txt"}, Rows: [][]*string{{s("1000000"), nil}}}, "     id|txt\n-------+---\n1000000|   \n(1 row)\n\n"},
		// PQprint's number test: "e1" is text, "12-22-2008" a number.
		{ResultSet{Columns: []string{"amount", "d"}, Rows: [][]*string{{s("-1.5e3"), s("")}, {s("e1"), s("12-22-2008")}}}, "amount|         d\n------+----------\n-1.5e3|          \ne1    |12-22-2008\n(2 rows)\n\n"},
		{ResultSet{Columns: []string{}}, ""},
	} {
		var b strings.Builder
		writeResultSet(&b, c.rs)
		if b.String() != c.want {
			t.Errorf("%+v:\n%q\nwant\n%q", c.rs, b.String(), c.want)
		}
	}
}

func TestUnifiedDiff(t *testing.T) {
	a := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n"
	b := "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n11\n12\n13\n"
	want := "--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n@@ -10,3 +10,4 @@\n 10\n 11\n 12\n+13\n"
	if got := unifiedDiff("a", "b", a, b); got != want {
		t.Fatalf("diff:\n%s\nwant\n%s", got, want)
	}
	if unifiedDiff("a", "b", a, a) != "" {
		t.Fatal("equal inputs have a diff")
	}
}

// TestSpecSessionsIgnoreTheCallersTimeZone: the caller's PGTZ must not
// change what a spec session prints (pgx sends it as "timezone" beside the
// session's "TimeZone", in map order). Twelve permutations of two sessions
// start 24 connections.
func TestSpecSessionsIgnoreTheCallersTimeZone(t *testing.T) {
	t.Setenv("PGTZ", "UTC")
	path := filepath.Join(t.TempDir(), "tz.spec")
	src := "session s1\nstep r1 { SELECT '2024-01-01 12:00:00+00'::timestamptz AS t; }\nsession s2\nstep r2 { SELECT '2024-01-01 12:00:00+00'::timestamptz AS t; }\n" +
		strings.Repeat("permutation r1 r2\n", 12)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := LoadSpec(path)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := RunSpec(fixture.Context(t), spec, opts(interleave.Options{}), &out); err != nil {
		t.Fatal(err)
	}
	const want = "Mon Jan 01 04:00:00 2024 PST"
	if n := strings.Count(out.String(), want); n != 24 || strings.Contains(out.String(), "UTC") {
		t.Fatalf("%d of 24 steps printed %q (the session's time zone):\n%s", n, want, out.String())
	}
}

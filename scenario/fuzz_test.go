package scenario

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pginterleave/interleave/internal/testkit/testenv"
)

// Arbitrary bytes never panic the scenario-file loader: every outcome is a
// Loaded or an error.
func FuzzLoadYAML(f *testing.F) {
	for _, p := range []string{"testdata/counter.yaml", "testdata/counter-fixed.yaml", "testdata/ledger/ledger.yaml"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, m := range malformed {
		f.Add([]byte(m.src))
	}
	f.Add([]byte("name: c\nactors: &a [*a, {name: b, command: [x]}]\n"))
	f.Add([]byte("name: c\nactors:\n  - !!map {name: a, command: !!seq [x]}\n  - {name: b, command: [1, 2.5, true]}\n"))
	dir := f.TempDir()
	path := filepath.Join(dir, "fuzz.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Parse(path, data)
		if err == nil && (l.Scenario.Validate() != nil || len(l.SourceFiles) == 0) {
			t.Fatalf("accepted an invalid scenario: %v", l.Scenario.Validate())
		}
	})
}

// Arbitrary bytes never panic the spec parser.
func FuzzParseSpec(f *testing.F) {
	specs, _ := filepath.Glob(filepath.Join(testenv.Shared(f, "pg-isolation"), "specs", "*.spec"))
	for _, p := range specs {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("session \"s \"\"1\"\"\"\nsetup { BEGIN; }\nstep a { SELECT 1; }\nteardown { COMMIT; }\nsession s2\nstep b { SELECT 2; }\npermutation a(*) b(a, a notices 3)\n"))
	f.Add([]byte("# only a comment"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSpec("fuzz.spec", data)
		if err != nil {
			return
		}
		if len(s.Sessions) == 0 || len(s.Sessions) > maxSessions {
			t.Fatalf("accepted %d sessions", len(s.Sessions))
		}
		perms, err := s.permutationsToRun()
		if err == nil && len(perms) == 0 {
			t.Fatal("no permutation to run")
		}
	})
}

package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFaultOptions(t *testing.T) {
	base := "name: f\nactors:\n  - name: a\n    command: [true]\n  - name: b\n    command: [true]\ninvariant:\n  sql:\n    - query: SELECT 1\n      expect: [[\"1\"]]\noptions:\n"
	load := func(opts string) (*Loaded, error) {
		p := filepath.Join(t.TempDir(), "s.yaml")
		if err := os.WriteFile(p, []byte(base+opts), 0o644); err != nil {
			t.Fatal(err)
		}
		return LoadFile(p)
	}
	l, err := load("  faults: lost-reply,terminate\n  max-faults: 2\n")
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Options.Search.Faults.String(); got != "lost-reply,terminate" || l.Options.Search.MaxFaults != 2 {
		t.Fatalf("faults %q, max-faults %d", got, l.Options.Search.MaxFaults)
	}
	for opts, want := range map[string]string{
		"  faults: drop-table\n": `unknown fault "drop-table"`,
		"  max-faults: -1\n":     "max-faults must be an integer",
		"  faults: [reset]\n":    "faults",
	} {
		if _, err := load(opts); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v; want %q", opts, err, want)
		}
	}
}

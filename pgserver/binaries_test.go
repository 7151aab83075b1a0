package pgserver

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Discovery on a fake directory tree per platform: what is found, from
// where, and in which order (the shell's PATH and pg_config first, then the
// installers' places newest major first).
func TestCandidatesOnFakeTrees(t *testing.T) {
	type found struct{ dir, source string }
	for _, tc := range []struct {
		goos     string
		dirs     []string // bin directories to create (under the tree)
		broken   []string // directories with only initdb
		path     string   // the bin directory PATH finds initdb in
		pgConfig string
		env      map[string]string
		want     []found
	}{
		{
			goos: "darwin",
			dirs: []string{"/opt/homebrew/opt/postgresql@14/bin", "/opt/homebrew/opt/postgresql@17/bin", "/usr/local/opt/postgresql@16/bin",
				"/Applications/Postgres.app/Contents/Versions/18/bin", "/Applications/Postgres.app/Contents/Versions/latest/bin",
				"/opt/homebrew/bin", "HOME/.asdf/installs/postgres/15.4/bin", "HOME/.local/share/mise/installs/postgres/13.2/bin",
				"CACHE/17-darwin-arm64/bin", "CACHE/18-linux-x64/bin"},
			broken: []string{"/opt/homebrew/opt/postgresql@19/bin"},
			want: []found{
				{"/Applications/Postgres.app/Contents/Versions/18/bin", "Postgres.app"},
				{"/opt/homebrew/opt/postgresql@17/bin", "Homebrew"},
				{"CACHE/17-darwin-arm64/bin", "interleave postgres install"},
				{"/usr/local/opt/postgresql@16/bin", "Homebrew"},
				{"HOME/.asdf/installs/postgres/15.4/bin", "asdf"},
				{"/opt/homebrew/opt/postgresql@14/bin", "Homebrew"},
				{"HOME/.local/share/mise/installs/postgres/13.2/bin", "mise"},
				{"/Applications/Postgres.app/Contents/Versions/latest/bin", "Postgres.app"},
				{"/opt/homebrew/bin", "Homebrew"},
			},
		},
		{
			goos: "linux",
			dirs: []string{"/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/13/bin", "/usr/pgsql-16/bin", "/usr/local/pgsql/bin",
				"/home/linuxbrew/.linuxbrew/opt/postgresql@17/bin", "CACHE/18-linux-x64/bin", "CACHE/18-darwin-arm64/bin"},
			path:     "/usr/local/pgsql/bin",
			pgConfig: "/usr/lib/postgresql/13/bin",
			want: []found{
				{"/usr/local/pgsql/bin", "PATH"},
				{"/usr/lib/postgresql/13/bin", "pg_config"},
				{"CACHE/18-linux-x64/bin", "interleave postgres install"},
				{"/home/linuxbrew/.linuxbrew/opt/postgresql@17/bin", "Homebrew"},
				{"/usr/pgsql-16/bin", "PGDG package"},
				{"/usr/lib/postgresql/15/bin", "Debian/Ubuntu package"},
			},
		},
		{
			goos: "windows",
			dirs: []string{"PF/PostgreSQL/16/bin", "PF/PostgreSQL/17/bin", "CACHE/17-windows-x64/bin"},
			env:  map[string]string{"ProgramFiles": "PF"},
			want: []found{
				{"PF/PostgreSQL/17/bin", "EDB installer"},
				{"CACHE/17-windows-x64/bin", "interleave postgres install"},
				{"PF/PostgreSQL/16/bin", "EDB installer"},
			},
		},
	} {
		t.Run(tc.goos, func(t *testing.T) {
			tree := t.TempDir()
			at := func(p string) string {
				p = strings.NewReplacer("HOME", "home/u", "CACHE", "cache", "PF", "Program Files").Replace(p)
				return filepath.Join(tree, filepath.FromSlash(p))
			}
			names := []string{"initdb", "postgres"}
			if tc.goos == "windows" {
				names = []string{"initdb.exe", "postgres.exe"}
			}
			for _, d := range append(append([]string{}, tc.dirs...), tc.broken...) {
				if err := os.MkdirAll(at(d), 0o755); err != nil {
					t.Fatal(err)
				}
				for i, n := range names {
					if i == 1 && contains(tc.broken, d) {
						break
					}
					if err := os.WriteFile(filepath.Join(at(d), n), []byte("#!/bin/sh\n"), 0o755); err != nil {
						t.Fatal(err)
					}
				}
			}
			platform := map[string]string{"linux": "linux-x64", "darwin": "darwin-arm64", "windows": "windows-x64"}[tc.goos]
			env := searchEnv{goos: tc.goos, root: tree, home: at("HOME"), caches: []string{at("CACHE")}, platform: platform,
				getenv: func(k string) string {
					if v, ok := tc.env[k]; ok {
						return at(v)
					}
					return ""
				},
				lookPath: func(name string) (string, error) {
					if tc.path == "" {
						return "", errors.New("not on PATH")
					}
					return filepath.Join(at(tc.path), name), nil
				},
				pgConfig: func() string {
					if tc.pgConfig == "" {
						return ""
					}
					return at(tc.pgConfig)
				},
			}
			got := env.candidates()
			var gotFound []found
			for _, c := range got {
				rel, _ := filepath.Rel(tree, c.Dir)
				gotFound = append(gotFound, found{"/" + filepath.ToSlash(rel), c.Source})
			}
			var want []found
			for _, w := range tc.want {
				rel, _ := filepath.Rel(tree, at(w.dir))
				want = append(want, found{"/" + filepath.ToSlash(rel), w.source})
			}
			if len(gotFound) != len(want) {
				t.Fatalf("found %d:\n%v\nwant %d:\n%v", len(gotFound), gotFound, len(want), want)
			}
			for i := range want {
				if gotFound[i] != want[i] {
					t.Errorf("candidate %d: %v, want %v", i, gotFound[i], want[i])
				}
			}
		})
	}
}

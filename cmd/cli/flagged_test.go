package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestFlaggedMapsOptionsToFlags(t *testing.T) {
	for in, want := range map[string]string{
		"or name their directory (Options.Server.PGBin, or INTERLEAVE_PG_BIN)": "or name their directory (--pg-bin, or INTERLEAVE_PG_BIN)",
		"pass Options.Output.Force to overwrite it":                            "pass --force to overwrite it",
		"try a larger ReplayOptions.Repeat":                                    "try a larger --repeat",
		"run with Options.Proxy.Connections multi-producer":                    "run with --connections multi-producer",
		"(raise it: Options.Proxy.MaxMessage)":                                 "(raise it: --max-message)",
		"pass export.Options.Force to replace it":                              "pass --force to replace it",
		"Options.Server.Provider and Options.Server.TLS":                       "--docker and --upstream-tls",
		"Options.NoSuchThing stays":                                            "Options.NoSuchThing stays",
	} {
		if got := Flagged(in); got != want {
			t.Errorf("Flagged(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLibraryNamesNoFlag: the library's messages name options
// (Options.Server.PGBin), never the command line's flags (--pg-bin); the
// command line maps them (Flagged). Every string literal of every
// non-test file outside cmd/ and the repository's tooling is read.
func TestLibraryNamesNoFlag(t *testing.T) {
	var names []string
	for _, groups := range commandFlags {
		for _, g := range groups {
			for _, d := range g {
				names = append(names, regexp.QuoteMeta(d.name))
			}
		}
	}
	names = append(names, "docker", "pg-major", "cache-dir", "secret-env")
	flagRE := regexp.MustCompile(`(^|[^-\w])--(` + strings.Join(names, "|") + `)\b`)
	root := filepath.Join("..", "..")
	skip := map[string]bool{"cmd": true, "bench": true, "examples": true, "casestudies": true, "scripts": true, "docs": true, "node_modules": true, "testkit": true, "testdata": true, ".git": true, "npm": true}
	files := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skip[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, 0)
		if err != nil {
			return err
		}
		files++
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			// A script the library writes (an export bundle's replay)
			// runs the interleave command with its flags.
			if err == nil && !strings.HasPrefix(s, "#!") && flagRE.MatchString(s) {
				t.Errorf("%s: %q names a command-line flag; name the option (Options.X) and let the command line map it", p, s)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read only %d library files", files)
	}
}

package scaffold

import (
	"encoding/json"
	"go/format"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every kind renders, the Go program is gofmt'ed, and the go.mod carries
// the replace directive only when asked, a release when given one, and
// otherwise no version (go mod tidy adds the latest).
func TestMake(t *testing.T) {
	tmp := t.TempDir()
	for _, c := range []struct {
		o     Options
		files []string
	}{
		{Options{Kind: Go, Dir: filepath.Join(tmp, "My Likes!")}, []string{"main.go", "go.mod", "README.md"}},
		{Options{Kind: Go, Dir: filepath.Join(tmp, "r"), Replace: "/src/interleave"}, []string{"main.go", "go.mod", "README.md"}},
		{Options{Kind: Go, Dir: filepath.Join(tmp, "my-likes"), Require: "v0.3.0", Published: true}, []string{"main.go", "go.mod", "README.md"}},
		{Options{Kind: JavaScript, Dir: filepath.Join(tmp, "j")}, []string{"scenario.mjs", "package.json", "README.md"}},
		{Options{Kind: YAML, Dir: filepath.Join(tmp, "y")}, []string{"scenario.yaml", "README.md"}},
	} {
		p, err := Make(c.o)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, f := range p.Files {
			names = append(names, f.Name)
			switch f.Name {
			case "main.go":
				if got, err := format.Source(f.Data); err != nil || string(got) != string(f.Data) {
					t.Fatalf("main.go is not gofmt'ed (%v)", err)
				}
			case "go.mod":
				s := string(f.Data)
				if !strings.HasPrefix(s, "module my-likes\n") && c.o.Replace == "" {
					t.Fatalf("go.mod's module path:\n%s", s)
				}
				// A replace requires the unpublished version; without one,
				// go.mod names the release it is given or no version at all.
				want := map[bool]string{true: "require github.com/pginterleave/interleave " + UnpublishedVersion, false: "require github.com/pginterleave/interleave " + c.o.Require}[c.o.Replace != ""]
				if strings.Contains(s, "replace ") != (c.o.Replace != "") || (c.o.Replace != "" || c.o.Require != "") != strings.Contains(s, want) ||
					c.o.Replace == "" && c.o.Require == "" && strings.Contains(s, "require") {
					t.Fatalf("go.mod for replace %q, require %q:\n%s", c.o.Replace, c.o.Require, s)
				}
			}
		}
		if strings.Join(names, ",") != strings.Join(c.files, ",") {
			t.Fatalf("%s: files %v, want %v", c.o.Kind, names, c.files)
		}
	}
	if _, err := Make(Options{Kind: "rust", Dir: tmp}); err == nil || !strings.Contains(err.Error(), "the kinds are go, js and yaml") {
		t.Fatalf("unknown kind: %v", err)
	}
}

// Write refuses before writing anything when one file exists.
func TestWriteNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "package.json"), []byte("{}"), 0o644)
	p, err := Make(Options{Kind: JavaScript, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Write(dir); err == nil || !strings.Contains(err.Error(), "package.json is already there") {
		t.Fatalf("Write over package.json: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("Write wrote files: %v", entries)
	}
}

// A release's JavaScript scaffold names the same release of the npm
// package as a devDependency (npm install then brings the interleave
// command, and the README runs it with npx); a build that is not a release
// names none, and its README says to put the command on PATH.
func TestJavaScriptScaffoldNamesTheNPMRelease(t *testing.T) {
	for _, version := range []string{"0.4.1", ""} {
		p, err := Make(Options{Kind: JavaScript, Dir: filepath.Join(t.TempDir(), "likes"), NPMVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		files := map[string]string{}
		for _, f := range p.Files {
			files[f.Name] = string(f.Data)
		}
		var pkg struct {
			Dependencies    map[string]string `json:"dependencies"`
			DevDependencies map[string]string `json:"devDependencies"`
		}
		if err := json.Unmarshal([]byte(files["package.json"]), &pkg); err != nil {
			t.Fatalf("package.json for version %q is not JSON: %v\n%s", version, err, files["package.json"])
		}
		if pkg.Dependencies["pg"] == "" {
			t.Fatalf("package.json lost pg:\n%s", files["package.json"])
		}
		readme := files["README.md"]
		if version != "" {
			if pkg.DevDependencies[NPMPackage] != version {
				t.Fatalf("devDependencies %v, want %s %s", pkg.DevDependencies, NPMPackage, version)
			}
			if !strings.Contains(readme, "npx interleave run scenario.mjs") || strings.Contains(readme, "must be on PATH") {
				t.Fatalf("a release's README should run npx interleave:\n%s", readme)
			}
			continue
		}
		if len(pkg.DevDependencies) != 0 {
			t.Fatalf("a build that is not a release named %v", pkg.DevDependencies)
		}
		if !strings.Contains(readme, "must be on PATH") || strings.Contains(readme, "npx interleave run") {
			t.Fatalf("a non-release README should say to put interleave on PATH:\n%s", readme)
		}
	}
}

// Package scaffold writes the files of a new scenario (`interleave init`):
// a Go scenario program, a JavaScript defineScenario module or a YAML
// scenario file, each a lost update that fails on its first attempt, with a
// README that says what to run next. It never overwrites a file and needs
// no network.
package scaffold

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"text/template"
)

//go:embed templates
var templates embed.FS

// Kind is what a scaffold is written in.
type Kind string

const (
	Go         Kind = "go"
	JavaScript Kind = "js"
	YAML       Kind = "yaml"
)

// ScenarioName is the name of the scaffolded scenario.
const ScenarioName = "likes"

// GoVersion is the go line of a scaffolded go.mod: the oldest Go that
// builds Interleave (its own go.mod says the same).
const GoVersion = "1.25.0"

// UnpublishedVersion is the version a go.mod requires when Interleave's
// module comes from a replace directive: what `go mod edit -replace`
// followed by `go mod tidy` writes for a module that has no release.
const UnpublishedVersion = "v0.0.0-00010101000000-000000000000"

// ErrExists is returned, wrapped, when a file the scaffold would write is
// already there.
var ErrExists = errors.New("init never overwrites a file")

// Options say what to write where.
type Options struct {
	Kind Kind
	Dir  string
	// Go only. Require is the version of github.com/pginterleave/interleave
	// the go.mod requires: with Replace, default UnpublishedVersion;
	// without, empty means no require line (go mod tidy then adds the
	// latest release). Replace, when set, is the directory of a checkout of
	// it, written as a replace directive; Published says Require is a
	// release a module proxy serves.
	Require   string
	Replace   string
	Published bool
	// JavaScript only. NPMVersion, when set, is the npm release of
	// @pginterleave/interleave (NPMPackage) that package.json names as a
	// devDependency, so that `npm install` brings the interleave command
	// (npx interleave, and npm run scripts) with no binary on PATH. Empty
	// (a build that is not a release) names none.
	NPMVersion string
}

// NPMPackage is the npm package of Interleave: the CLI, the JavaScript API
// and defineScenario.
const NPMPackage = "@pginterleave/interleave"

// File is one file of a scaffold.
type File struct {
	Name string // relative to Options.Dir
	Data []byte
}

// Plan is what Write would write, with the facts the next steps depend on.
type Plan struct {
	Files []File
	// ModuleRoot is the directory of the Go module that already encloses
	// Dir, when there is one: the scaffold then writes no go.mod and the
	// program is a package of that module.
	ModuleRoot string
}

type data struct {
	Name, Package, ModulePath, GoVersion, Require, Replace, ModuleRoot string
	NPMPackage, NPMVersion                                             string
	InModule, Published                                                bool
}

// Make renders the scaffold of o without writing anything.
func Make(o Options) (*Plan, error) {
	abs, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, err
	}
	pkg := packageName(filepath.Base(abs))
	d := data{Name: ScenarioName, Package: pkg, ModulePath: pkg, GoVersion: GoVersion, Require: o.Require, Replace: o.Replace, Published: o.Published,
		NPMPackage: NPMPackage, NPMVersion: o.NPMVersion}
	if d.Require == "" && d.Replace != "" {
		d.Require = UnpublishedVersion
	}
	var names []string
	switch o.Kind {
	case Go, "":
		o.Kind = Go
		names = []string{"main.go", "go.mod", "README.md"}
		if root := EnclosingModule(abs); root != "" {
			d.ModuleRoot, d.InModule = root, true
			names = []string{"main.go", "README.md"}
		}
	case JavaScript:
		names = []string{"scenario.mjs", "package.json", "README.md"}
	case YAML:
		names = []string{"scenario.yaml", "README.md"}
	default:
		return nil, fmt.Errorf("unknown scaffold kind %q; the kinds are go, js and yaml", o.Kind)
	}
	p := &Plan{ModuleRoot: d.ModuleRoot}
	for _, n := range names {
		src, err := fs.ReadFile(templates, "templates/"+string(o.Kind)+"/"+n+".tmpl")
		if err != nil {
			return nil, err
		}
		t, err := template.New(n).Option("missingkey=error").Parse(string(src))
		if err != nil {
			return nil, fmt.Errorf("template %s: %w", n, err)
		}
		var b bytes.Buffer
		if err := t.Execute(&b, d); err != nil {
			return nil, fmt.Errorf("template %s: %w", n, err)
		}
		p.Files = append(p.Files, File{Name: n, Data: b.Bytes()})
	}
	return p, nil
}

// Write writes p's files into dir, creating dir when needed. It refuses,
// before writing anything, when any of the files exists, and creates each
// file exclusively, so that a file that appears meanwhile is not
// overwritten either.
func (p *Plan) Write(dir string) ([]string, error) {
	var existing []string
	for _, f := range p.Files {
		if _, err := os.Lstat(filepath.Join(dir, f.Name)); err == nil {
			existing = append(existing, filepath.Join(dir, f.Name))
		}
	}
	if len(existing) > 0 {
		return nil, fmt.Errorf("%w, and %s already there: choose another directory, or move them away", ErrExists, plural(existing))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var written []string
	for _, f := range p.Files {
		path := filepath.Join(dir, f.Name)
		w, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			return written, fmt.Errorf("%w, and %s appeared while init was writing", ErrExists, path)
		}
		if err != nil {
			return written, err
		}
		_, err = w.Write(f.Data)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return written, err
		}
		written = append(written, path)
	}
	return written, nil
}

var notPackageChar = regexp.MustCompile(`[^a-z0-9._-]+`)

// packageName makes a Go module path element and an npm package name out
// of a directory name.
func packageName(base string) string {
	s := strings.Trim(notPackageChar.ReplaceAllString(strings.ToLower(base), "-"), "-._")
	if s == "" {
		return "interleave-scenario"
	}
	return s
}

// EnclosingModule is the directory of the nearest go.mod at or above dir,
// or "".
func EnclosingModule(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if st, err := os.Stat(filepath.Join(d, "go.mod")); err == nil && st.Mode().IsRegular() {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// plural lists paths with the verb that agrees with them.
func plural(paths []string) string {
	if len(paths) == 1 {
		return paths[0] + " is"
	}
	return strings.Join(paths[:len(paths)-1], ", ") + " and " + paths[len(paths)-1] + " are"
}

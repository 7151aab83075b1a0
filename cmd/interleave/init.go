package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/pginterleave/interleave/cmd/cli"
	"github.com/pginterleave/interleave/scaffold"
	"github.com/spf13/cobra"
)

// InitJSON is what `interleave init --json` prints
// (docs/json/init.v1.schema.json).
type InitJSON struct {
	SchemaVersion int      `json:"schemaVersion"`
	Kind          string   `json:"kind"` // go, js or yaml
	Dir           string   `json:"dir"`
	Scenario      string   `json:"scenario"`
	Files         []string `json:"files"`
	// Go only: what go.mod requires, the checkout a replace directive points
	// at, and the enclosing module when the scaffold is a package of one.
	Require    string   `json:"require,omitempty"`
	Replace    string   `json:"replace,omitempty"`
	ModuleRoot string   `json:"moduleRoot,omitempty"`
	Next       []string `json:"next"`
	Notes      []string `json:"notes,omitempty"`
}

func initCommand() *cobra.Command {
	var js, yaml, asJSON bool
	var checkoutPath string
	cmd := &cobra.Command{
		Use:   "init [DIR] [--js | --yaml] [--module-path CHECKOUT]",
		Short: "Write a lost-update scenario that fails, to start from (Go by default; --js, --yaml)",
		Long: `init writes a small scenario that Interleave finds a race in on its first
attempt: two actors like the same post by reading the count, adding one and
writing it back, and one like is lost. DIR (default interleave-scenario, or
interleave-scenario-js with --js and interleave-scenario-yaml with --yaml, so
that the three kinds fit side by side) is created when missing; init refuses,
before writing anything, when any file it would write exists. It needs no
network and installs nothing.

  (default)  main.go (a scenario program calling interleave.Main with pgx),
             go.mod and README.md. Inside an existing Go module no go.mod is
             written: the program is a package of that module.
  --js       scenario.mjs (defineScenario with node-postgres), package.json
             (pg as a dependency, a "race" script) and README.md.
  --yaml     scenario.yaml (psql command actors, SQL setup and invariant) and
             README.md.

How the Go scaffold reaches Interleave's module: an interleave installed
with go install ...@VERSION (or a release build) requires that VERSION; an
interleave built from a checkout points a new module at that checkout with
a replace directive, since there is no release to require (--module-path
names another checkout); otherwise no version is named and go mod tidy adds
the latest release from the module proxy. Inside an existing Go module the
scenario is a package of it: init adds the release to that module's go.mod
(go mod edit -require) and never a replace it was not asked for.`,
		Example: `  interleave init likes && cd likes && go mod tidy && interleave run .
  interleave init --js likes-js && cd likes-js && npm install && interleave run scenario.mjs
  interleave init --yaml likes-yaml && interleave run likes-yaml/scenario.yaml
  interleave init likes --module-path ~/src/interleave`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o := scaffold.Options{Kind: scaffold.Go}
			switch {
			case js && yaml:
				return &cli.UsageError{Msg: "--js and --yaml exclude each other: pick one kind of scenario", Usage: cmd.UseLine()}
			case js:
				o.Kind = scaffold.JavaScript
			case yaml:
				o.Kind = scaffold.YAML
			}
			dir := defaultInitDir[o.Kind]
			if len(args) == 1 {
				dir = args[0]
			}
			o.Dir = dir
			var notes []string
			if o.Kind == scaffold.Go {
				var err error
				if o, notes, err = goDependency(o, checkoutPath); err != nil {
					return err
				}
			} else if checkoutPath != "" {
				return fmt.Errorf("--module-path is for Go scenarios; --js and --yaml scenarios need no Go module")
			}
			if v := moduleRelease(); v != "" && o.Kind == scaffold.JavaScript {
				// A release's package.json names the same release on npm.
				o.NPMVersion = strings.TrimPrefix(v, "v")
			}
			plan, err := scaffold.Make(o)
			if err != nil {
				return err
			}
			written, err := plan.Write(dir)
			if err != nil {
				return err
			}
			res := InitJSON{SchemaVersion: 1, Kind: string(o.Kind), Dir: dir, Scenario: scaffold.ScenarioName, Files: written, Notes: notes}
			if o.Kind == scaffold.Go {
				res.Require, res.Replace, res.ModuleRoot = o.Require, o.Replace, plan.ModuleRoot
				if plan.ModuleRoot != "" {
					inModule := dir + " is a package of the module in " + plan.ModuleRoot + ": no go.mod was written"
					if o.Published {
						added, err := requireInModule(plan.ModuleRoot, o.Require)
						if err != nil {
							return err
						}
						if added {
							inModule += "; its go.mod now requires " + modulePath + " " + o.Require
						}
					}
					res.Notes = append([]string{inModule}, res.Notes...)
				}
			}
			res.Next = nextSteps(o, dir, plan.ModuleRoot)
			if asJSON {
				return writeJSONOut(cmd.OutOrStdout(), res)
			}
			printInit(cmd, res)
			return nil
		},
	}
	cmd.Flags().BoolVar(&js, "js", false, "write a JavaScript scenario (scenario.mjs, package.json)")
	cmd.Flags().BoolVar(&yaml, "yaml", false, "write a YAML scenario file with psql command actors")
	cmd.Flags().StringVar(&checkoutPath, "module-path", "", "a checkout of github.com/pginterleave/interleave for the go.mod's replace directive (default: the source this binary was built from, when present)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print what was written and the next commands as JSON")
	return cmd
}

// defaultInitDir is where init writes each kind of scenario without DIR:
// one folder per kind, so that `init --js` after `init --yaml` works.
var defaultInitDir = map[scaffold.Kind]string{
	scaffold.Go:         "interleave-scenario",
	scaffold.JavaScript: "interleave-scenario-js",
	scaffold.YAML:       "interleave-scenario-yaml",
}

// goDependency decides how the scaffold reaches Interleave's module:
// a replace to --module-path when asked; else the release this binary is,
// required by version; else, for a new module outside any other, a replace
// to the checkout this binary was built from when it is still here (there
// is no release to require); else no version at all, for go mod tidy to
// add the latest release. A package of an existing module never gets a
// replace it did not ask for.
func goDependency(o scaffold.Options, flagPath string) (scaffold.Options, []string, error) {
	if flagPath != "" {
		abs, err := filepath.Abs(flagPath)
		if err != nil {
			return o, nil, err
		}
		if !isInterleaveCheckout(abs) {
			return o, nil, fmt.Errorf("--module-path %s is not a checkout of %s (its go.mod must say `module %s`)", flagPath, modulePath, modulePath)
		}
		o.Replace = abs
		return o, nil, nil
	}
	if v := moduleRelease(); v != "" {
		o.Require, o.Published = v, true
		return o, nil, nil
	}
	if scaffold.EnclosingModule(mustAbs(o.Dir)) != "" {
		return o, []string{"this interleave is not a release, so init names no version: go mod tidy adds Interleave's latest release from the module proxy (--module-path CHECKOUT builds against a checkout instead)"}, nil
	}
	if dir := builtFromCheckout(); dir != "" {
		o.Replace = dir
		return o, []string{"go.mod points at the checkout this interleave binary was built from, " + dir + "; pass --module-path to use another"}, nil
	}
	return o, nil, nil
}

// moduleRelease is the release of Interleave's module this binary is:
// its module version when it was installed with go install ...@vX.Y.Z
// (not the "(devel)" of a build from a checkout, nor a pseudo-version,
// which names a commit a proxy may never have seen), else the version a
// release build was given (releaseVersion), else "".
func moduleRelease() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v := bi.Main.Version; strings.HasPrefix(v, "v") && !strings.Contains(v, "+") && !pseudoVersion.MatchString(v) {
			return v
		}
	}
	if v := "v" + strings.TrimPrefix(releaseVersion, "v"); releaseVersion != "" && semverRelease.MatchString(v) {
		return v
	}
	return ""
}

var semverRelease = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$`)

// requireInModule adds Interleave's release to the go.mod in root, with
// the go command (go mod edit writes go.mod as the go command does), unless
// that module already names Interleave or is Interleave. It reports
// whether go.mod was changed.
func requireInModule(root, version string) (bool, error) {
	if moduleRequires(root) || isInterleaveCheckout(root) {
		return false, nil
	}
	cmd := exec.Command("go", "mod", "edit", "-require="+modulePath+"@"+version)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return false, fmt.Errorf("add %s@%s to %s: %v: %s; add the line `require %s %s` to it yourself, or install Go", modulePath, version, filepath.Join(root, "go.mod"), err, strings.TrimSpace(string(out)), modulePath, version)
	}
	return true, nil
}

var pseudoVersion = regexp.MustCompile(`[.-][0-9]{14}-[0-9a-f]{12}$`)

// builtFromCheckout is the root of the repository checkout this binary was
// compiled from, when it is still there: the compiler records this file's
// path (unless -trimpath), and a module cache directory (name@version) is
// not a checkout.
func builtFromCheckout() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return ""
	}
	root := filepath.Dir(filepath.Dir(filepath.Dir(file)))
	if strings.Contains(root, "@") || !isInterleaveCheckout(root) {
		return ""
	}
	return root
}

// isInterleaveCheckout reports whether dir's go.mod declares Interleave's
// module.
func isInterleaveCheckout(dir string) bool {
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) == 2 && fields[0] == "module" {
			return strings.Trim(fields[1], `"`) == modulePath
		}
	}
	return false
}

// moduleRequires reports whether the go.mod in root already names
// Interleave's module.
func moduleRequires(root string) bool {
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	return err == nil && strings.Contains(string(b), modulePath)
}

// nextSteps are the commands to run after init, in order.
func nextSteps(o scaffold.Options, dir, moduleRoot string) []string {
	var steps []string
	switch o.Kind {
	case scaffold.JavaScript:
		if o.NPMVersion != "" {
			return []string{"cd " + shellQuote(dir), "npm install", "npx interleave run scenario.mjs --out failure.json"}
		}
		return []string{"cd " + shellQuote(dir), "npm install", "interleave run scenario.mjs --out failure.json"}
	case scaffold.YAML:
		return []string{"interleave run " + shellQuote(filepath.Join(dir, "scenario.yaml")) + " --out failure.json"}
	}
	if moduleRoot != "" {
		rel, err := filepath.Rel(moduleRoot, mustAbs(dir))
		if err != nil {
			rel = dir
		}
		steps = append(steps, "cd "+shellQuote(moduleRoot))
		if o.Replace != "" && !moduleRequires(moduleRoot) {
			steps = append(steps, "go mod edit -require="+modulePath+"@"+o.Require+" -replace="+modulePath+"="+shellQuote(o.Replace))
		}
		return append(steps, "go mod tidy", "interleave run ./"+filepath.ToSlash(rel)+" --out failure.json")
	}
	steps = append(steps, "cd "+shellQuote(dir))
	return append(steps, "go mod tidy", "interleave run . --out failure.json")
}

func printInit(cmd *cobra.Command, r InitJSON) {
	w := cmd.OutOrStdout()
	kinds := map[string]string{"go": "a Go scenario program", "js": "a JavaScript scenario", "yaml": "a YAML scenario file"}
	fmt.Fprintf(w, "Wrote %s in %s: scenario %q, a lost update that fails on its first attempt.\n", kinds[r.Kind], r.Dir, r.Scenario)
	for _, f := range r.Files {
		fmt.Fprintf(w, "  %s\n", f)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "Note: %s.\n", n)
	}
	fmt.Fprintln(w, "Next (README.md says more):")
	for _, s := range r.Next {
		fmt.Fprintf(w, "  %s\n", s)
	}
	fmt.Fprintln(w, "The run exits 1 and prints the order of SQL commands that lost a like.")
}

func mustAbs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:@~", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

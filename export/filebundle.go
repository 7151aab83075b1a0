package export

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/fingerprint"
)

// FileOptions say what to bundle for a scenario file (YAML, or a
// JavaScript defineScenario module): the file, the files its fingerprint
// covers (as loading it names them), and the interleave binary that runs
// it.
type FileOptions struct {
	Scenario   string   // the scenario file
	Files      []string // the files the fingerprint covers (the scenario's Source.Files)
	Root       string   // what their recorded paths are relative to (Source.Root)
	Interleave string   // the interleave binary to bundle (this one)
	Artifact   string
	Out        string
	Force      bool
	Log        func(format string, args ...any)
}

// BundleFile writes the regression bundle of a scenario file: the
// artifact, the scenario's files at the same places relative to each other,
// its node_modules when it has some (JavaScript), the interleave binary, a
// replay script, a README and the manifest. The files must be the recorded
// ones. Checked first and written atomically, like Bundle.
func BundleFile(ctx context.Context, o FileOptions) error {
	out, err := checkOut(o.Out, o.Force)
	if err != nil {
		return err
	}
	rec, err := artifact.Read(o.Artifact)
	if err != nil {
		return err
	}
	if rec.Scenario.Kind != "file" {
		return fmt.Errorf("the artifact was recorded from a %s scenario, not a scenario file", kindName(rec.Scenario.Kind))
	}
	if rec.Fingerprint == nil || len(rec.Fingerprint.Sources) == 0 {
		return errors.New("the artifact carries no source fingerprint: record the failure again with this version of Interleave (Options.Output.Out keeps it)")
	}
	now, err := fingerprint.Files(o.Files, o.Root)
	if err != nil {
		return err
	}
	if d := fingerprint.ProgramDifferences(&artifact.Fingerprint{Sources: rec.Fingerprint.Sources, GoVersion: now.GoVersion, Interleave: now.Interleave},
		&artifact.Fingerprint{Sources: now.Sources, GoVersion: now.GoVersion, Interleave: now.Interleave}); len(d) > 0 {
		return fmt.Errorf("the scenario's files changed since the recording (%s); a bundle of them would not replay exactly (record again first)", strings.Join(d, "; "))
	}
	// The bundle keeps the files where they are relative to each other:
	// under src/, below the deepest directory that holds them all.
	base, err := commonDir(append([]string{o.Scenario, o.Root}, o.Files...))
	if err != nil {
		return err
	}
	nodeModules := ""
	if isJS(o.Scenario) {
		if nodeModules, err = findNodeModules(filepath.Dir(o.Scenario)); err != nil {
			return err
		}
		if nodeModules != "" && !within(base, nodeModules) {
			if base, err = commonDir([]string{base, filepath.Dir(nodeModules)}); err != nil {
				return err
			}
		}
	}
	return build(out, base, o.Artifact, func(staging string) error {
		logf := o.Log
		if logf == nil {
			logf = func(string, ...any) {}
		}
		src := filepath.Join(staging, "src")
		for _, f := range o.Files {
			if err := copyFile(f, filepath.Join(src, rel(base, f))); err != nil {
				return err
			}
		}
		logf("copied %d scenario files", len(o.Files))
		if nodeModules != "" {
			real, err := filepath.EvalSymlinks(nodeModules) // a linked install is copied whole
			if err != nil {
				return err
			}
			n, err := copyTree(ctx, real, filepath.Join(src, rel(base, nodeModules)))
			if err != nil {
				return fmt.Errorf("copy %s: %w", nodeModules, err)
			}
			logf("copied node_modules (%d files)", n)
		}
		if err := copyFile(o.Interleave, filepath.Join(staging, "bin", "interleave")); err != nil {
			return err
		}
		if err := os.Chmod(filepath.Join(staging, "bin", "interleave"), 0o700); err != nil {
			return err
		}
		scenarioRel := filepath.ToSlash(rel(base, o.Scenario))
		if err := os.WriteFile(filepath.Join(staging, "replay"), []byte(fileReplayScript(scenarioRel)), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(staging, "README.md"), []byte(fileReadme(rec, scenarioRel)), 0o600); err != nil {
			return err
		}
		return nil
	})
}

func kindName(k string) string {
	if k == "" {
		return "Go"
	}
	return k
}

func isJS(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".mjs", ".js", ".cjs":
		return true
	}
	return false
}

// findNodeModules is the node_modules directory Node resolves the
// scenario's packages from: the nearest one at or above dir ("" if none).
func findNodeModules(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		nm := filepath.Join(d, "node_modules")
		if st, err := os.Stat(nm); err == nil && st.IsDir() {
			return nm, nil
		}
		if filepath.Dir(d) == d {
			return "", nil
		}
	}
}

// commonDir is the deepest directory holding every path.
func commonDir(paths []string) (string, error) {
	var base string
	for i, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", err
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			abs = filepath.Dir(abs)
		}
		if i == 0 {
			base = abs
			continue
		}
		for !within(base, abs) {
			base = filepath.Dir(base)
		}
	}
	return base, nil
}

// within reports whether path is dir or below it.
func within(dir, path string) bool {
	r, err := filepath.Rel(dir, path)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}

func rel(base, path string) string {
	abs, _ := filepath.Abs(path)
	r, _ := filepath.Rel(base, abs)
	return r
}

// copyTree copies the regular files below from (links are left out: the
// .bin links of node_modules are not needed to load packages).
func copyTree(ctx context.Context, from, to string) (int, error) {
	n := 0
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !d.Type().IsRegular() {
			return nil
		}
		n++
		return copyFile(p, filepath.Join(to, rel(from, p)))
	})
	return n, err
}

func fileReplayScript(scenario string) string {
	platform := unameOS[runtime.GOOS] + "-" + unameArch[runtime.GOARCH]
	return fmt.Sprintf(`#!/bin/sh
# Replays the recorded failure in artifact.json, offline: the scenario file
# and what it loads are in src/ (node_modules included for JavaScript), an
# interleave binary for %[2]s is in bin/. Exit codes: 1 the failure
# reproduced, 0 it did not, 3 the recording no longer applies (see the list
# it prints), 2 an error. Arguments are passed to the replay (--guided).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
export INTERLEAVE_SCENARIO_FILE="$here/src/%[1]s"
bin="$here/bin/interleave"
if [ "$(uname -s)-$(uname -m)" != "%[2]s" ]; then
	bin=interleave # another platform: the interleave command on PATH
fi
exec "$bin" replay "$INTERLEAVE_SCENARIO_FILE" "$here/artifact.json" "$@"
`, scenario, platform)
}

func fileReadme(a *artifact.Artifact, scenario string) string {
	needs := "PostgreSQL's server binaries and the programs the scenario's actors run"
	if isJS(scenario) {
		needs = "PostgreSQL's server binaries and Node.js (the version recorded: " + a.Fingerprint.Runtime + ")"
	}
	return fmt.Sprintf(`# Interleave regression bundle: %s

Outcome recorded: **%s**. %s

Replay it, offline (it needs %s; nothing is downloaded):

    ./replay

The replay first checks that nothing changed since the recording (the
scenario's files, Interleave's version, the runtime, PostgreSQL's version
and settings, the database after setup) and exits 3 with the list of
differences if something did; otherwise it runs the actors in the recorded
order.

Check the bundle without running anything:

    interleave export --verify .

Contents: artifact.json (the recording), src/ (the scenario file %s and the
files it loads), bin/interleave (for %s/%s), replay, %s (SHA-256 of every
file).
`, a.Scenario.Name, a.Outcome.Kind, a.Outcome.Message, needs, scenario, runtime.GOOS, runtime.GOARCH, ManifestName)
}

// Package jsseed gives tests and benchmarks the original JavaScript tool's
// opening example (../shared/seed-example beside the repository, never
// copied into it) in a temporary project, with node-postgres installed by
// npm once and shared.
package jsseed

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/pginterleave/interleave/internal/testkit/testenv"
)

// Files are the example's files: the scenario, the application code it
// imports, and package.json (which asks for pg).
var Files = []string{"scenario.mjs", "counter.mjs", "package.json"}

// Dir is the example's directory, seed-example in the shared test data
// beside the repository (internal/testenv.Shared): when a file is missing,
// tb fails in CI and is skipped elsewhere.
func Dir(tb testing.TB) string {
	tb.Helper()
	return testenv.Shared(tb, "seed-example", Files...)
}

var npm struct {
	once sync.Once
	dir  string
	err  error
	out  []byte
}

// Installed is a directory holding node_modules (what the example's
// package.json asks for) and package-lock.json, installed with npm once per
// package.json and kept in the temporary directory for later runs, as the
// Go build cache is.
func Installed(tb testing.TB) string {
	tb.Helper()
	seed := Dir(tb)
	testenv.Command(tb, "npm", "install Node.js and npm (apt-get install -y nodejs npm; scripts/ensure-deps node)")
	npm.once.Do(func() {
		pkg, err := os.ReadFile(filepath.Join(seed, "package.json"))
		if err != nil {
			npm.err = err
			return
		}
		sum := sha256.Sum256(pkg)
		final := filepath.Join(os.TempDir(), "interleave-test-npm-"+hex.EncodeToString(sum[:6]))
		if isRegular(filepath.Join(final, "node_modules", "pg", "package.json")) && isRegular(filepath.Join(final, "package-lock.json")) {
			npm.dir = final
			return
		}
		tmp, err := os.MkdirTemp(os.TempDir(), "interleave-test-npm-install-")
		if err != nil {
			npm.err = err
			return
		}
		if err := os.WriteFile(filepath.Join(tmp, "package.json"), pkg, 0o644); err != nil {
			npm.err = err
			return
		}
		cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--loglevel=error")
		cmd.Dir = tmp
		if npm.out, npm.err = cmd.CombinedOutput(); npm.err != nil {
			os.RemoveAll(tmp)
			return
		}
		if err := os.Rename(tmp, final); err != nil { // another test binary won
			os.RemoveAll(tmp)
		}
		npm.dir = final
	})
	if npm.err != nil {
		tb.Fatalf("npm install of the example's dependencies (needs npm and the registry): %v\n%s", npm.err, npm.out)
	}
	return npm.dir
}

// Project is a new directory with the example, unchanged, plus extra files
// (which may replace the example's); with modules it also has node_modules
// (a link to the shared install) and the lockfile, as after npm install.
func Project(tb testing.TB, modules bool, extra map[string]string) string {
	tb.Helper()
	seed := Dir(tb)
	testenv.Command(tb, "node", "install Node.js (apt-get install -y nodejs; scripts/ensure-deps node)")
	dir := tb.TempDir()
	for _, f := range Files {
		data, err := os.ReadFile(filepath.Join(seed, f))
		if err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	if modules {
		inst := Installed(tb)
		if err := os.Symlink(filepath.Join(inst, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
			tb.Fatal(err)
		}
		lock, err := os.ReadFile(filepath.Join(inst, "package-lock.json"))
		if err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "package-lock.json"), lock, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	for name, src := range extra {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// SameAsSeed fails tb unless the project's copy of f is the example's,
// byte for byte.
func SameAsSeed(tb testing.TB, dir, f string) {
	tb.Helper()
	a, _ := os.ReadFile(filepath.Join(Dir(tb), f))
	b, _ := os.ReadFile(filepath.Join(dir, f))
	if len(a) == 0 || !bytes.Equal(a, b) {
		tb.Fatalf("%s differs from the seed example's", f)
	}
}

func isRegular(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

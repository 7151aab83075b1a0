package scenario

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pginterleave/interleave/pgserver"
)

// seedFiles are the original tool's example, read from the repository's
// ../shared/seed-example (never copied into the repository).
var seedFiles = []string{"scenario.mjs", "counter.mjs", "package.json"}

// seedExample is the directory of the original tool's example:
// $INTERLEAVE_SEED_EXAMPLE, or ../shared/seed-example beside the
// repository's root.
func seedExample(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("INTERLEAVE_SEED_EXAMPLE")
	if dir == "" {
		wd, _ := os.Getwd()
		root := wd
		for !isRegular(filepath.Join(root, "go.mod")) {
			if filepath.Dir(root) == root {
				t.Fatalf("no go.mod above %s: cannot find the repository root", wd)
			}
			root = filepath.Dir(root)
		}
		dir = filepath.Join(filepath.Dir(root), "shared", "seed-example")
	}
	for _, f := range seedFiles {
		if !isRegular(filepath.Join(dir, f)) {
			t.Fatalf("the original tool's example is missing %s in %s (the repository's ../shared/seed-example); set INTERLEAVE_SEED_EXAMPLE to the directory that holds it", f, dir)
		}
	}
	return dir
}

var npm struct {
	once sync.Once
	dir  string
	err  error
	out  []byte
}

// installedModules is a directory holding node_modules (pg, as the seed's
// package.json asks) and package-lock.json, installed with npm once per
// package.json and kept in the temporary directory for later runs, as the
// Go build cache is.
func installedModules(t testing.TB) string {
	t.Helper()
	seed := seedExample(t)
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
		t.Fatalf("npm install pg for the JavaScript tests (needs npm and the registry): %v\n%s", npm.err, npm.out)
	}
	return npm.dir
}

// jsProject is a new directory with the seed example, unchanged, plus
// extra files; with modules it also has node_modules (a link to the shared
// install) and the lockfile, as after `npm install`.
func jsProject(t *testing.T, modules bool, extra map[string]string) string {
	t.Helper()
	seed := seedExample(t)
	dir := t.TempDir()
	for _, f := range seedFiles {
		data, err := os.ReadFile(filepath.Join(seed, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if modules {
		inst := installedModules(t)
		if err := os.Symlink(filepath.Join(inst, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
			t.Fatal(err)
		}
		lock, err := os.ReadFile(filepath.Join(inst, "package-lock.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "package-lock.json"), lock, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, src := range extra {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// sameAsSeed fails unless the project's copy of f is the seed's, byte for
// byte.
func sameAsSeed(t *testing.T, dir, f string) {
	t.Helper()
	a, _ := os.ReadFile(filepath.Join(seedExample(t), f))
	b, _ := os.ReadFile(filepath.Join(dir, f))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Fatalf("%s differs from the seed example's", f)
	}
}

// nodeProcessesIn lists the pids of running processes whose command line
// names a file in dir (the scenario's Node hosts and anything they run
// with it), from /proc.
func nodeProcessesIn(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatalf("list processes: %v", err)
	}
	var pids []string
	for _, e := range entries {
		if strings.Trim(e.Name(), "0123456789") != "" {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if strings.Contains(string(cmdline), dir+string(filepath.Separator)) {
			stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
			if strings.Contains(string(stat), ") Z ") { // a zombie is gone but for its parent's wait
				continue
			}
			pids = append(pids, e.Name())
		}
	}
	return pids
}

// serverURL is a URL of the shared test server for --database-url: the CLI
// then creates and drops its own databases on it instead of starting a
// server per command.
func serverURL(t *testing.T, srv pgserver.Server) string {
	t.Helper()
	if srv == nil {
		t.Fatal("no shared test server (TestMain starts one)")
	}
	return srv.ConnString(srv.MaintenanceDB())
}

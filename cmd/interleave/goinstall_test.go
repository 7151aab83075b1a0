package main

import (
	"archive/zip"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// proxyVersion is the version scripts/goproxy gives this commit in the
// tests: a release, as a Go user would install one.
const proxyVersion = "v0.1.0"

// goUser is the environment of a Go user whose module proxy serves this
// repository at proxyVersion: the file-based proxy scripts/goproxy writes
// from HEAD comes first, so our module never comes from anywhere else;
// third-party modules come from this machine's module cache (itself in the
// proxy layout) and, for what it lacks, from proxy.golang.org. The module
// cache is empty and private to the test; -trimpath keeps the build cache
// useful across runs although the module cache moves.
func goUser(t *testing.T, proxy, modcache string) []string {
	t.Helper()
	machine, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatalf("go env GOMODCACHE: %v (is Go installed and on PATH?)", err)
	}
	return []string{
		"GOPROXY=file://" + proxy + ",file://" + filepath.Join(strings.TrimSpace(string(machine)), "cache", "download") + ",https://proxy.golang.org",
		"GONOSUMDB=github.com/pginterleave",
		"GOMODCACHE=" + modcache,
		"GOFLAGS=-modcacherw -trimpath",
		"GOWORK=off",
		"GOTOOLCHAIN=local",
	}
}

// buildProxy runs scripts/goproxy for HEAD (committed files only).
func buildProxy(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "proxy")
	script, _ := filepath.Abs("../../scripts/goproxy")
	if b, err := exec.Command(script, out, proxyVersion).CombinedOutput(); err != nil {
		t.Fatalf("scripts/goproxy: %v\n%s", err, b)
	}
	dir := filepath.Join(out, "github.com", "pginterleave", "interleave", "@v")
	for _, f := range []string{"list", proxyVersion + ".info", proxyVersion + ".mod", proxyVersion + ".zip"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Fatalf("scripts/goproxy did not write %s: %v", f, err)
		}
	}
	return out
}

// go install ...@VERSION and go get of the library from a module proxy,
// and init and run with the installed command, as a Go user does:
//   - go install github.com/pginterleave/interleave/cmd/interleave@v0.1.0
//     into an empty GOBIN; interleave --version names that version;
//   - go get github.com/pginterleave/interleave@v0.1.0 in a fresh module
//     whose program imports the library: go.mod requires v0.1.0, no replace,
//     and the program builds and runs;
//   - interleave init inside another module adds the scenario as a package
//     of it, requiring v0.1.0 in its go.mod (no replace); go mod tidy, then
//     interleave run finds the lost update (exit 1) on real PostgreSQL;
//   - interleave init outside any module writes a go.mod requiring v0.1.0,
//     says go mod tidy is what to run next, and that tidy downloads no
//     Docker, containerd, moby or OpenTelemetry module (issue 20 item 12).
func TestGoInstallFromModuleProxy(t *testing.T) {
	proxy := buildProxy(t)
	tmp := t.TempDir()
	env := goUser(t, proxy, filepath.Join(tmp, "modcache"))
	gobin := filepath.Join(tmp, "bin")
	if r := runIn(t, tmp, append(env, "GOBIN="+gobin), "go", "install", modulePath+"/cmd/interleave@"+proxyVersion); r.code != 0 {
		t.Fatalf("go install: %s", r)
	}
	bin := filepath.Join(gobin, "interleave")
	r := runIn(t, tmp, nil, bin, "--version")
	if want := "interleave " + strings.TrimPrefix(proxyVersion, "v") + "\nmodule:     " + modulePath + " " + proxyVersion + "\n"; r.code != 0 || !strings.HasPrefix(r.stdout, want) {
		t.Fatalf("interleave --version: want %q, got %s", want, r)
	}

	t.Run("go get", func(t *testing.T) {
		app := newModule(t, tmp, "app", env)
		src := "package main\n\nimport (\n\t\"fmt\"\n\n\t\"github.com/pginterleave/interleave\"\n)\n\nfunc main() { fmt.Println(\"interleave\", interleave.Version) }\n"
		if err := os.WriteFile(filepath.Join(app, "main.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		if r := runIn(t, app, env, "go", "get", modulePath+"@"+proxyVersion); r.code != 0 {
			t.Fatalf("go get: %s", r)
		}
		mod := readText(t, filepath.Join(app, "go.mod"))
		if !strings.Contains(mod, modulePath+" "+proxyVersion) || strings.Contains(mod, "replace") {
			t.Fatalf("go.mod after go get: want %s %s and no replace:\n%s", modulePath, proxyVersion, mod)
		}
		if r := runIn(t, app, env, "go", "run", "."); r.code != 0 || !strings.HasPrefix(r.stdout, "interleave ") {
			t.Fatalf("go run of a program that imports the library: %s", r)
		}
	})

	t.Run("init in a module", func(t *testing.T) {
		app := newModule(t, tmp, "app2", env)
		r := runIn(t, app, env, bin, "init", "race")
		if r.code != 0 || !strings.Contains(r.stdout, "its go.mod now requires "+modulePath+" "+proxyVersion) || !strings.Contains(r.stdout, "  go mod tidy\n") {
			t.Fatalf("init inside a module: %s", r)
		}
		mod := readText(t, filepath.Join(app, "go.mod"))
		if !strings.Contains(mod, "require "+modulePath+" "+proxyVersion) || strings.Contains(mod, "replace") {
			t.Fatalf("the module's go.mod after init: want require %s %s and no replace:\n%s", modulePath, proxyVersion, mod)
		}
		if _, err := os.Stat(filepath.Join(app, "race", "go.mod")); err == nil {
			t.Fatal("init wrote a go.mod inside an existing module")
		}
		if r := runIn(t, app, env, "go", "mod", "tidy"); r.code != 0 {
			t.Fatalf("go mod tidy: %s", r)
		}
		r = runIn(t, app, env, bin, "run", "./race", "--out", "failure.json")
		if r.code != 1 || !strings.Contains(r.stdout, "Both likes must be counted: got 1, want 2") {
			t.Fatalf("interleave run ./race: want exit 1 and the lost like, got %s", r)
		}
	})

	// A release's JavaScript scaffold names the same release on npm, so
	// that npm install brings the interleave command and npx runs it.
	t.Run("init --js", func(t *testing.T) {
		dir := t.TempDir()
		r := runIn(t, dir, env, bin, "init", "--js", "likes")
		if r.code != 0 || !strings.Contains(r.stdout, "  npx interleave run scenario.mjs --out failure.json\n") {
			t.Fatalf("init --js from a release: want npx interleave as the next step, got %s", r)
		}
		pkg := readText(t, filepath.Join(dir, "likes", "package.json"))
		if want := `"@pginterleave/interleave": "` + strings.TrimPrefix(proxyVersion, "v") + `"`; !strings.Contains(pkg, want) {
			t.Fatalf("package.json: want the devDependency %s:\n%s", want, pkg)
		}
	})

	t.Run("init outside any module", func(t *testing.T) {
		dir := t.TempDir()
		r := runIn(t, dir, env, bin, "init", "likes")
		if r.code != 0 || !strings.Contains(r.stdout, "Next (README.md says more):\n  cd likes\n  go mod tidy\n  interleave run . --out failure.json\n") {
			t.Fatalf("init outside a module: want cd, go mod tidy and run as the next steps, got %s", r)
		}
		mod := readText(t, filepath.Join(dir, "likes", "go.mod"))
		if !strings.Contains(mod, "require "+modulePath+" "+proxyVersion) || strings.Contains(mod, "replace") {
			t.Fatalf("go.mod: want require %s %s and no replace:\n%s", modulePath, proxyVersion, mod)
		}
		// The tidy a new user runs, into an empty module cache of its own:
		// what it downloads is what the scaffold costs them.
		fresh := goUser(t, proxy, filepath.Join(tmp, "modcache-tidy"))
		if r := runIn(t, filepath.Join(dir, "likes"), fresh, "go", "mod", "tidy"); r.code != 0 {
			t.Fatalf("go mod tidy: %s", r)
		}
		zips, mods := downloaded(t, filepath.Join(tmp, "modcache-tidy", "cache", "download"))
		t.Logf("go mod tidy of a fresh scaffold downloaded %d module zips and %d go.mod files: %s", len(zips), len(mods), strings.Join(zips, " "))
		for _, m := range append(zips, mods...) {
			for _, heavy := range []string{"github.com/docker/", "go.opentelemetry.io/", "github.com/containerd/", "github.com/moby/", "github.com/opencontainers/", "github.com/chromedp/"} {
				if strings.HasPrefix(m, heavy) {
					t.Errorf("go mod tidy of the scaffold downloaded %s, which a scenario's build does not need", m)
				}
			}
		}
		if r := runIn(t, filepath.Join(dir, "likes"), fresh, "go", "build", "-o", os.DevNull, "."); r.code != 0 {
			t.Fatalf("go build after go mod tidy: %s", r)
		}
	})
}

// newModule makes dir/name a new module (go mod init example.com/name).
func newModule(t *testing.T, dir, name string, env []string) string {
	t.Helper()
	app := filepath.Join(dir, name)
	if err := os.MkdirAll(app, 0o755); err != nil {
		t.Fatal(err)
	}
	if r := runIn(t, app, env, "go", "mod", "init", "example.com/"+name); r.code != 0 {
		t.Fatalf("go mod init: %s", r)
	}
	return app
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// downloaded lists the modules whose zip, and whose go.mod, a module cache
// holds (module@version, escaped as the cache escapes them).
func downloaded(t *testing.T, root string) (zips, mods []string) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		mod, file, ok := strings.Cut(filepath.ToSlash(rel), "/@v/")
		switch {
		case !ok:
		case strings.HasSuffix(file, ".zip"):
			zips = append(zips, mod+"@"+strings.TrimSuffix(file, ".zip"))
		case strings.HasSuffix(file, ".mod"):
			mods = append(mods, mod+"@"+strings.TrimSuffix(file, ".mod"))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(zips)
	sort.Strings(mods)
	return zips, mods
}

// scripts/goproxy's tree is what the go command expects of a proxy: every
// zip entry under MODULE@VERSION/, the module's go.mod beside the zip and
// in it, no file of a nested module (examples/drivers, casestudies/go), an
// .info naming the version and a time, a list that gains each version
// written; a version the module cannot have is refused with exit 2.
func TestGoProxyLayout(t *testing.T) {
	out := buildProxy(t)
	script, _ := filepath.Abs("../../scripts/goproxy")
	if b, err := exec.Command(script, out, "v0.2.0-rc.1").CombinedOutput(); err != nil {
		t.Fatalf("scripts/goproxy a second version: %v\n%s", err, b)
	}
	dir := filepath.Join(out, "github.com", "pginterleave", "interleave", "@v")
	if list := readText(t, filepath.Join(dir, "list")); list != proxyVersion+"\nv0.2.0-rc.1\n" {
		t.Fatalf("list %q: want both versions", list)
	}
	var info struct{ Version, Time string }
	if err := json.Unmarshal([]byte(readText(t, filepath.Join(dir, proxyVersion+".info"))), &info); err != nil || info.Version != proxyVersion || !strings.HasSuffix(info.Time, "Z") {
		t.Fatalf(".info %+v (%v): want the version and a UTC time", info, err)
	}
	z, err := zip.OpenReader(filepath.Join(dir, proxyVersion+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	prefix := modulePath + "@" + proxyVersion + "/"
	files := map[string]*zip.File{}
	for _, f := range z.File {
		if !strings.HasPrefix(f.Name, prefix) {
			t.Fatalf("zip entry %s is not under %s", f.Name, prefix)
		}
		name := strings.TrimPrefix(f.Name, prefix)
		if strings.HasPrefix(name, "examples/drivers/") || strings.HasPrefix(name, "casestudies/go/") || name != "go.mod" && strings.HasSuffix(name, "/go.mod") {
			t.Fatalf("zip holds %s, a file of a nested module", name)
		}
		files[name] = f
	}
	for _, want := range []string{"go.mod", "go.sum", "interleave.go", "cmd/interleave/main.go", "scaffold/templates/go/main.go.tmpl"} {
		if files[want] == nil {
			t.Fatalf("zip lacks %s", want)
		}
	}
	rc, err := files["go.mod"].Open()
	if err != nil {
		t.Fatal(err)
	}
	inZip, _ := io.ReadAll(rc)
	rc.Close()
	if string(inZip) != readText(t, filepath.Join(dir, proxyVersion+".mod")) {
		t.Fatal("the zip's go.mod differs from the .mod file")
	}
	for _, bad := range []string{"v2.0.0", "1.0.0", "v1.0", "v1.0.0+meta"} {
		cmd := exec.Command(script, out, bad)
		if b, err := cmd.CombinedOutput(); cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(b), "not a version this module can have") {
			t.Fatalf("scripts/goproxy %s: want exit 2 and a refusal, got %v: %s", bad, err, b)
		}
	}
}

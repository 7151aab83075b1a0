package export

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/supervise"
)

// Options say what to bundle and where.
type Options struct {
	ProgramDir string // the scenario program's package directory
	Artifact   string // the recorded failure
	Out        string // the bundle directory (created; must not exist unless Force)
	Force      bool
	// Log, when set, receives one line per step.
	Log io.Writer
}

// ManifestName is the manifest file in a bundle.
const ManifestName = "MANIFEST.sha256"

// Bundle writes the regression bundle. The sources must be exactly the
// recorded ones (the artifact's fingerprint lists them with their SHA-256),
// so that the bundle's exact replay checks pass on another machine.
//
// Everything is checked before any work starts (the output's directory, the
// artifact, the program, every source's hash); the bundle is written in a
// private staging directory beside Out and renamed to Out when complete, so
// a failed export leaves nothing behind.
func Bundle(ctx context.Context, o Options) error {
	out, err := checkOut(o.Out, o.Force)
	if err != nil {
		return err
	}
	rec, err := artifact.Read(o.Artifact)
	if err != nil {
		return err
	}
	fp := rec.Fingerprint
	if fp == nil || len(fp.Sources) == 0 {
		return errors.New("the artifact carries no source fingerprint: record the failure again with this version of Interleave (Options.Output.Out keeps it)")
	}
	if k := rec.Scenario.Kind; k != "" && k != "go" {
		return fmt.Errorf("the artifact was recorded from a scenario %s, not a Go scenario program; export bundles Go programs (keep the scenario file and the artifact together instead)", k)
	}
	progAbs, err := filepath.Abs(o.ProgramDir)
	if err != nil {
		return err
	}
	root, err := moduleRoot(progAbs)
	if err != nil {
		return err
	}
	progRel, err := filepath.Rel(root, progAbs)
	if err != nil {
		return err
	}
	progRel = filepath.ToSlash(progRel)
	if p := rec.Scenario.Program; p != "" && path.Clean(p) != path.Clean(progRel) {
		return fmt.Errorf("the artifact was recorded from the program %s of its module, not ./%s", p, progRel)
	}
	files := append(append([]artifact.SourceFile{}, fp.Sources...), fp.Modules...)
	if err := checkSourcePaths(root, files); err != nil {
		return err
	}
	for _, f := range files {
		sum, err := fileSHA256(filepath.Join(root, filepath.FromSlash(f.Path)))
		if err != nil {
			return fmt.Errorf("source %s: %w", f.Path, err)
		}
		if sum != f.SHA256 {
			return fmt.Errorf("%s changed since the recording; a bundle of these sources would not replay exactly (record again first)", f.Path)
		}
	}
	if err := build(out, root, o.Artifact, func(dir string) error {
		return writeBundle(ctx, o, dir, rec, root, progAbs, progRel, files)
	}); err != nil {
		return err
	}
	if o.Log != nil {
		fmt.Fprintf(o.Log, "wrote %s and published the bundle\n", ManifestName)
	}
	return nil
}

// build makes the bundle out: it refuses to replace the sources under base
// or the artifact, has write fill a staging directory beside out with the
// bundle's own files, adds the artifact, makes every file private, writes
// the manifest and renames the whole into place. On any error nothing is
// left behind.
func build(out, base, artifactPath string, write func(dir string) error) error {
	artAbs, err := filepath.Abs(artifactPath)
	if err != nil {
		return err
	}
	if err := refuseReplacing(out, base, artAbs); err != nil {
		return err
	}
	staging, err := stagingDir(out)
	if err != nil {
		return err
	}
	published := false
	defer func() {
		if !published {
			discard(staging)
		}
	}()
	if err := write(staging); err != nil {
		return err
	}
	if err := copyFile(artifactPath, filepath.Join(staging, "artifact.json")); err != nil {
		return err
	}
	if err := makePrivate(staging); err != nil {
		return err
	}
	if err := writeManifest(staging); err != nil {
		return err
	}
	if beforePublish != nil {
		beforePublish(staging)
	}
	if err := publish(staging, out); err != nil {
		return err
	}
	published = true
	return dropOwnerRecord(out)
}

// writeBundle writes the files of a Go bundle into dir: the sources, the
// vendored dependencies, the built program, the replay script and README.
func writeBundle(ctx context.Context, o Options, dir string, rec *artifact.Artifact, root, progAbs, progRel string, files []artifact.SourceFile) error {
	logf := func(format string, args ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, format+"\n", args...)
		}
	}
	src := filepath.Join(dir, "src")
	for _, f := range files {
		if err := copyFile(filepath.Join(root, filepath.FromSlash(f.Path)), filepath.Join(src, filepath.FromSlash(f.Path))); err != nil {
			return err
		}
	}
	logf("copied %d source and module files", len(files))
	if err := goCmd(ctx, src, nil, "mod", "vendor"); err != nil {
		return fmt.Errorf("go mod vendor: %w", err)
	}
	// The vendored tree must hold every package the program imports: the
	// bundle builds from it, offline, on another platform.
	if err := goCmd(ctx, src, offlineEnv, "list", "-deps", "./"+progRel); err != nil {
		return fmt.Errorf("the vendored sources do not hold every package %s imports: %w", progRel, err)
	}
	logf("vendored the module's dependencies")
	// The sources are byte for byte those of the module (checked above), so
	// the binary is built there, exactly as `interleave run` built it: the
	// go command's cache then holds every compiled package, where a build
	// in the new directory compiles everything again (a minute or more).
	bin := filepath.Join(dir, "bin", "scenario")
	if err := goCmd(ctx, progAbs, nil, "build", "-o", bin, "."); err != nil {
		return fmt.Errorf("build the scenario program: %w", err)
	}
	logf("built bin/scenario for %s/%s with %s", runtime.GOOS, runtime.GOARCH, runtime.Version())
	if err := os.WriteFile(filepath.Join(dir, "replay"), []byte(replayScript(progRel)), 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "README.md"), []byte(readme(rec, progRel)), 0o600)
}

// offlineEnv is how the bundle's sources build: vendored, no network, the
// local toolchain, no workspace around the bundle.
var offlineEnv = []string{"GOFLAGS=-mod=vendor", "GOPROXY=off", "GOTOOLCHAIN=local", "GOWORK=off"}

func moduleRoot(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("%s is not inside a Go module (no go.mod above it)", dir)
		}
	}
}

func goCmd(ctx context.Context, dir string, env []string, args ...string) error {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	removeWork, err := supervise.GoWork(cmd) // a killed build leaves no go-build* behind
	if err != nil {
		return err
	}
	defer removeWork()
	supervise.Prepare(cmd) // never outlives us; cancellation kills its tree
	if err := supervise.Run(cmd); err != nil {
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(out.String()))
	}
	return nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func copyFile(from, to string) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
		return err
	}
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_EXCL, st.Mode().Perm()&0o700)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

package export

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/pginterleave/interleave/artifact"
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
func Bundle(ctx context.Context, o Options) error {
	rec, err := artifact.Read(o.Artifact)
	if err != nil {
		return err
	}
	fp := rec.Fingerprint
	if fp == nil || len(fp.Sources) == 0 {
		return errors.New("the artifact carries no source fingerprint; record it with `interleave run DIR --out FILE`")
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
	if err := prepareOut(o.Out, o.Force); err != nil {
		return err
	}
	logf := func(format string, args ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, format+"\n", args...)
		}
	}
	src := filepath.Join(o.Out, "src")
	files := append(append([]artifact.SourceFile{}, fp.Sources...), fp.Modules...)
	for _, f := range files {
		from := filepath.Join(root, filepath.FromSlash(f.Path))
		sum, err := fileSHA256(from)
		if err != nil {
			return fmt.Errorf("source %s: %w", f.Path, err)
		}
		if sum != f.SHA256 {
			return fmt.Errorf("%s changed since the recording; a bundle of these sources would not replay exactly (record again first)", f.Path)
		}
		if err := copyFile(from, filepath.Join(src, filepath.FromSlash(f.Path))); err != nil {
			return err
		}
	}
	logf("copied %d source and module files", len(files))
	if err := goCmd(ctx, src, nil, "mod", "vendor"); err != nil {
		return fmt.Errorf("go mod vendor: %w", err)
	}
	logf("vendored the module's dependencies")
	bin := filepath.Join(o.Out, "bin", "scenario")
	if err := goCmd(ctx, src, []string{"GOFLAGS=-mod=vendor", "GOPROXY=off"}, "build", "-o", bin, "./"+filepath.ToSlash(progRel)); err != nil {
		return fmt.Errorf("build the scenario program from the bundle: %w", err)
	}
	logf("built bin/scenario for %s/%s with %s", runtime.GOOS, runtime.GOARCH, runtime.Version())
	if err := copyFile(o.Artifact, filepath.Join(o.Out, "artifact.json")); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(o.Out, "replay"), []byte(replayScript(filepath.ToSlash(progRel))), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(o.Out, "README.md"), []byte(readme(rec, filepath.ToSlash(progRel))), 0o644); err != nil {
		return err
	}
	if err := writeManifest(o.Out); err != nil {
		return err
	}
	logf("wrote %s", ManifestName)
	return nil
}

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

func prepareOut(out string, force bool) error {
	if entries, err := os.ReadDir(out); err == nil && len(entries) > 0 {
		if !force {
			return fmt.Errorf("%s exists and is not empty; pass --force to replace it", out)
		}
		if err := os.RemoveAll(out); err != nil {
			return err
		}
	}
	return os.MkdirAll(out, 0o755)
}

func goCmd(ctx context.Context, dir string, env []string, args ...string) error {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(string(out)))
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
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
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
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, st.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

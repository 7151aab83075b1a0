//go:build unix

package export

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pginterleave/interleave/artifact"
)

// TestExportKeepsSourcesInsideTheModule: an artifact's source paths are
// untrusted. One that is absolute, has "..", or leads outside the module
// through a symbolic link is refused as an invalid artifact before
// anything is read or written (issue 19 item 2: `../../../dir/evil.txt`
// with that file's size and SHA-256 made export exit 0 and create the
// file outside the bundle), and so is a source that is no regular file.
func TestExportKeepsSourcesInsideTheModule(t *testing.T) {
	tmp := t.TempDir()
	root := filepath.Join(tmp, "a", "b", "mod")
	prog := filepath.Join(root, "prog")
	write := func(p, s string) artifact.SourceFile {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(s))
		return artifact.SourceFile{Size: int64(len(s)), SHA256: hex.EncodeToString(sum[:])}
	}
	gomod := write(filepath.Join(root, "go.mod"), "module example.com/m\n\ngo 1.22\n")
	gomod.Path = "go.mod"
	main := write(filepath.Join(prog, "main.go"), "package main\n\nfunc main() {}\n")
	main.Path = "prog/main.go"
	evil := write(filepath.Join(tmp, "r", "evil.txt"), "secret outside the module\n")
	if err := os.Symlink(filepath.Join(tmp, "r"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(prog, "fifo.go"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"dot-dot":  "../../../r/evil.txt",
		"absolute": filepath.ToSlash(filepath.Join(tmp, "r", "evil.txt")),
		"symlink":  "link/evil.txt",
		"fifo":     "prog/fifo.go",
		"unclean":  "prog/./main.go",
	}
	for name, p := range cases {
		t.Run(name, func(t *testing.T) {
			src := evil
			src.Path = p
			a := &artifact.Artifact{
				SchemaVersion: artifact.SchemaVersion,
				Scenario:      artifact.Scenario{Name: "evil", Actors: []string{"a"}, Kind: "go", Program: "prog"},
				Outcome:       artifact.Outcome{Kind: "violation"},
				Fingerprint:   &artifact.Fingerprint{Sources: []artifact.SourceFile{main, src}, Modules: []artifact.SourceFile{gomod}},
			}
			art := filepath.Join(t.TempDir(), "evil.json")
			if err := artifact.Write(art, a, false); err != nil {
				t.Fatal(err)
			}
			// The bundle two levels deeper than the module: src/../../../r
			// would be a new directory beside it, outside the bundle.
			outDir := filepath.Join(tmp, "o1", "o2")
			os.MkdirAll(outDir, 0o700)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			err := Bundle(ctx, Options{ProgramDir: prog, Artifact: art, Out: filepath.Join(outDir, "bundle")})
			if !errors.Is(err, artifact.ErrInvalid) || !strings.Contains(err.Error(), p) {
				t.Fatalf("export with the source %q: %v, want an invalid artifact naming the path", p, err)
			}
			if _, err := os.Stat(filepath.Join(tmp, "o1", "r")); err == nil {
				t.Fatal("export wrote outside the bundle")
			}
			if left, _ := os.ReadDir(outDir); len(left) > 0 {
				t.Fatalf("export left %v", left)
			}
		})
	}
}

package fingerprint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave/artifact"
)

// behaviourSettings are the server settings that change what SQL does or in
// which order locks are taken; exact replay requires them unchanged.
var behaviourSettings = []string{
	"default_transaction_isolation", "default_transaction_read_only", "default_transaction_deferrable",
	"transaction_isolation", "lock_timeout", "statement_timeout", "idle_in_transaction_session_timeout",
	"deadlock_timeout", "max_prepared_transactions", "search_path", "row_security", "standard_conforming_strings",
	"server_encoding", "lc_collate", "lc_ctype", "TimeZone", "DateStyle", "IntervalStyle",
	"enable_seqscan", "enable_indexscan", "enable_bitmapscan", "enable_indexonlyscan", "enable_hashjoin",
	"enable_mergejoin", "enable_nestloop", "plan_cache_mode", "jit", "autovacuum",
}

// Version is Interleave's version, recorded in every artifact.
const Version = "0.1.0-dev"

// Program identifies the scenario program's sources and module
// files (paths, sizes, SHA-256; never contents), Go and Interleave versions.
// dir is the program's package directory; empty records versions only.
func Program(dir string) (*artifact.Fingerprint, error) {
	fp := &artifact.Fingerprint{GoVersion: runtime.Version(), Interleave: ToolVersion()}
	if dir == "" {
		return fp, nil
	}

	pkgs, err := goList(dir)
	if err != nil {
		return nil, err
	}
	root := ""
	seen := map[string]bool{}
	for _, p := range pkgs {
		if p.Module == nil || !p.Module.Main {
			continue
		}
		root = p.Module.Dir
		files := append(append(append([]string{}, p.GoFiles...), p.CgoFiles...), p.EmbedFiles...)
		if p.Dir == pkgs[len(pkgs)-1].Dir {
			files = append(append(files, p.TestGoFiles...), p.XTestGoFiles...)
		}
		for _, f := range files {
			path := filepath.Join(p.Dir, f)
			if seen[path] {
				continue
			}
			seen[path] = true
			sf, err := hashFile(path, root)
			if err != nil {
				return nil, err
			}
			fp.Sources = append(fp.Sources, sf)
		}
	}
	sort.Slice(fp.Sources, func(i, j int) bool { return fp.Sources[i].Path < fp.Sources[j].Path })
	if root != "" {
		for _, name := range []string{"go.mod", "go.sum"} {
			if sf, err := hashFile(filepath.Join(root, name), root); err == nil {
				fp.Modules = append(fp.Modules, sf)
			}
		}
	}
	return fp, nil
}

type listedPackage struct {
	Dir, ImportPath                                          string
	GoFiles, CgoFiles, EmbedFiles, TestGoFiles, XTestGoFiles []string
	Module                                                   *struct {
		Main bool
		Dir  string
	}
}

// goList returns the package graph of the package in dir, dependencies first.
func goList(dir string) ([]listedPackage, error) {
	cmd := exec.Command("go", "list", "-deps", "-json", ".")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		msg := err.Error()
		if ee, ok := err.(*exec.ExitError); ok {
			msg = strings.TrimSpace(string(ee.Stderr))
		}
		return nil, fmt.Errorf("list the scenario program's sources in %s (needs the go command): %s", dir, msg)
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			return nil, err
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("no Go package in %s", dir)
	}
	return pkgs, nil
}

func hashFile(path, root string) (artifact.SourceFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return artifact.SourceFile{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return artifact.SourceFile{}, err
	}
	rel, err := filepath.Rel(root, path)
	if err != nil {
		rel = path
	}
	return artifact.SourceFile{Path: filepath.ToSlash(rel), Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// ToolVersion is the version constant, plus the module version when
// Interleave is a dependency of the running program.
func ToolVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/pginterleave/interleave" && d.Version != "" && d.Version != "(devel)" {
				return Version + " (" + d.Version + ")"
			}
		}
	}
	return Version
}

// Server records the server version and behaviour settings.
func Server(ctx context.Context, conn *pgx.Conn, fp *artifact.Fingerprint) error {
	if err := conn.QueryRow(ctx, "SELECT version()").Scan(&fp.ServerVersion); err != nil {
		return err
	}
	rows, err := conn.Query(ctx, "SELECT name, setting FROM pg_settings WHERE name = ANY($1)", behaviourSettings)
	if err != nil {
		return err
	}
	fp.Settings = map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return err
		}
		fp.Settings[k] = v
	}
	return rows.Err()
}

// Files identifies listed source files (a scenario file and what
// it names), paths relative to root.
func Files(files []string, root string) (*artifact.Fingerprint, error) {
	fp := &artifact.Fingerprint{GoVersion: runtime.Version(), Interleave: ToolVersion()}
	seen := map[string]bool{}
	for _, f := range files {
		if seen[f] {
			continue
		}
		seen[f] = true
		sf, err := hashFile(f, root)
		if err != nil {
			return nil, fmt.Errorf("fingerprint %s: %w", f, err)
		}
		fp.Sources = append(fp.Sources, sf)
	}
	sort.Slice(fp.Sources, func(i, j int) bool { return fp.Sources[i].Path < fp.Sources[j].Path })
	return fp, nil
}

// Source names what defines a scenario: a Go program's package directory,
// or (for scenario files) the files themselves, recorded relative to Root.
type Source struct {
	ProgramDir string
	Files      []string
	Root       string
	Runtime    string // the scenario's own runtime, when it has one (Node.js)
}

// Of fingerprints the sources s names.
func Of(s Source) (fp *artifact.Fingerprint, err error) {
	if s.ProgramDir == "" && len(s.Files) > 0 {
		fp, err = Files(s.Files, s.Root)
	} else {
		fp, err = Program(s.ProgramDir)
	}
	if fp != nil {
		fp.Runtime = s.Runtime
	}
	return fp, err
}

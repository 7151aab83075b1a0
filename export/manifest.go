package export

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/supervise"
)

// writeManifest lists the SHA-256 of every file in dir, sorted by path,
// but the staging directory's owner record (dropped once published).
func writeManifest(dir string) error {
	sums, err := hashTree(dir)
	if err != nil {
		return err
	}
	delete(sums, supervise.RecordFile)
	paths := make([]string, 0, len(sums))
	for p := range sums {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var b strings.Builder
	for _, p := range paths {
		fmt.Fprintf(&b, "%s  %s\n", sums[p], p)
	}
	return os.WriteFile(filepath.Join(dir, ManifestName), []byte(b.String()), 0o600)
}

func hashTree(dir string) (map[string]string, error) {
	sums := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == ".build" {
				return filepath.SkipDir // what ./replay builds on another platform
			}
			return nil
		}
		if rel == ManifestName {
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file", rel)
		}
		sum, err := fileSHA256(path)
		if err != nil {
			return err
		}
		sums[rel] = sum
		return nil
	})
	return sums, err
}

// Problem is one way a bundle differs from its manifest.
type Problem struct {
	Path, What string
}

// Verify checks a bundle without running anything: every file listed in the
// manifest is present with its SHA-256, no file is unlisted, and the
// artifact is a valid artifact.
func Verify(dir string) ([]Problem, error) {
	f, err := os.Open(filepath.Join(dir, ManifestName))
	if err != nil {
		return nil, fmt.Errorf("%s has no %s: it is not an Interleave bundle", dir, ManifestName)
	}
	defer f.Close()
	want := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, path, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(sum) != 64 {
			return nil, fmt.Errorf("%s: malformed line %q", ManifestName, sc.Text())
		}
		want[path] = sum
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	have, err := hashTree(dir)
	if err != nil {
		return nil, err
	}
	var problems []Problem
	for p, sum := range want {
		switch h, ok := have[p]; {
		case !ok:
			problems = append(problems, Problem{p, "missing"})
		case h != sum:
			problems = append(problems, Problem{p, "changed (SHA-256 differs from the manifest)"})
		}
	}
	for p := range have {
		if _, ok := want[p]; !ok {
			problems = append(problems, Problem{p, "not in the manifest"})
		}
	}
	rec, err := artifact.Read(filepath.Join(dir, "artifact.json"))
	if err != nil {
		problems = append(problems, Problem{"artifact.json", err.Error()})
	}
	problems = append(problems, checkRunnable(dir, rec)...)
	sort.Slice(problems, func(i, j int) bool { return problems[i].Path < problems[j].Path })
	return problems, nil
}

// checkRunnable checks what ./replay needs, whatever the manifest says (a
// manifest lists what was written, even to the wrong place): the script,
// the binary it runs, and in src/ the module (go.mod, vendor/) with the
// program directory the script names.
func checkRunnable(bundle string, rec *artifact.Artifact) []Problem {
	var problems []Problem
	const (
		file = iota
		executable
		directory
	)
	need := func(rel string, kind int) {
		st, err := os.Stat(filepath.Join(bundle, filepath.FromSlash(rel)))
		switch {
		case err != nil:
			problems = append(problems, Problem{rel, "missing: ./replay needs it"})
		case kind == directory && !st.IsDir():
			problems = append(problems, Problem{rel, "is not a directory: ./replay needs one"})
		case kind != directory && !st.Mode().IsRegular():
			problems = append(problems, Problem{rel, "is not a regular file: ./replay needs one"})
		case kind == executable && st.Mode().Perm()&0o100 == 0:
			problems = append(problems, Problem{rel, "is not executable: ./replay runs it"})
		}
	}
	need("replay", executable)
	script, err := os.ReadFile(filepath.Join(bundle, "replay"))
	if err != nil {
		return problems
	}
	if m := scenarioFileLine.FindSubmatch(script); m != nil {
		// A scenario file's bundle: the interleave binary and the file.
		need("bin/interleave", executable)
		f := path.Clean(string(m[1]))
		if f == ".." || strings.HasPrefix(f, "../") || path.IsAbs(f) {
			return append(problems, Problem{"replay", fmt.Sprintf("names the scenario file %q outside src/", f)})
		}
		need(path.Join("src", f), file)
		if rec != nil && rec.Scenario.Program != "" && path.Base(f) != path.Base(rec.Scenario.Program) {
			problems = append(problems, Problem{"replay", fmt.Sprintf("runs src/%s, but the artifact was recorded from %s", f, rec.Scenario.Program)})
		}
		return problems
	}
	need("bin/scenario", executable)
	need("src/go.mod", file)
	need("src/vendor/modules.txt", file)
	m := programDirLine.FindSubmatch(script)
	if m == nil {
		return append(problems, Problem{"replay", "does not name the scenario program's directory (INTERLEAVE_PROGRAM_DIR)"})
	}
	prog := path.Clean(string(m[1]))
	if prog == ".." || strings.HasPrefix(prog, "../") || path.IsAbs(prog) {
		return append(problems, Problem{"replay", fmt.Sprintf("names the program directory %q outside src/", prog)})
	}
	need(path.Join("src", prog), directory)
	if rec != nil && rec.Scenario.Program != "" && path.Clean(rec.Scenario.Program) != prog {
		problems = append(problems, Problem{"replay", fmt.Sprintf("runs the program in src/%s, but the artifact was recorded from %s", prog, rec.Scenario.Program)})
	}
	return problems
}

// scenarioFileLine is the line of a scenario file's replay script that
// names the file.
var scenarioFileLine = regexp.MustCompile(`(?m)^export INTERLEAVE_SCENARIO_FILE="\$here/src/([^"\n]*)"$`)

// programDirLine is the line of the replay script that names the program.
var programDirLine = regexp.MustCompile(`(?m)^export INTERLEAVE_PROGRAM_DIR="\$here/src/([^"\n]*)"$`)

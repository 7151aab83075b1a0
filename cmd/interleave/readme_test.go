package main

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The README cannot drift (issue 20): every ```sh block in it runs, as
// pasted, in a copy of the working tree in a temporary directory, with HOME
// there too (init ~/likes) and no `interleave` on PATH but the one the
// README puts there. Each command must exit with the code its comment
// names ("exit 1"; 0 when it names none), and each sample output (a ```
// block after an sh block) must be what one of that block's commands
// prints, to the character once timings are masked.
//
// Left out, each for a reason the test states: ./scripts/test (it is the
// suite this test is part of) and blocks with a placeholder to fill in
// (<this repository>). It runs offline: modules come from the module
// cache (GOPROXY=off).
func TestREADMECommandsRunAsPasted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command of the README, each on its own throwaway PostgreSQL")
	}
	src, _ := filepath.Abs("../..")
	readme, err := os.ReadFile(filepath.Join(src, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := readmeBlocks(string(readme))
	tmp := t.TempDir()
	repo := filepath.Join(tmp, "interleave")
	copyWorkingTree(t, src, repo)
	home := filepath.Join(tmp, "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	env := readmeEnv(t, home)
	ran := 0
	for i, b := range blocks {
		if b.lang != "sh" {
			continue
		}
		var sample *readmeBlock
		if i+1 < len(blocks) && blocks[i+1].lang == "" {
			sample = &blocks[i+1]
		}
		if b.placeholder() {
			t.Logf("README line %d: not run, it has a placeholder to fill in: %s", b.line, b.lines[0])
			if sample != nil {
				t.Errorf("README line %d: a sample output after a block the test cannot run", sample.line)
			}
			continue
		}
		results := runBlock(t, repo, env, b)
		ran += len(results)
		for _, r := range results {
			if r.code != r.want {
				t.Errorf("README line %d: %s\nexit %d, want %d (the comment's)\n--- stdout\n%s--- stderr\n%s", r.line, r.cmd, r.code, r.want, r.stdout, r.stderr)
			}
		}
		if sample != nil {
			checkSample(t, *sample, results, repo)
		}
	}
	if ran < 15 {
		t.Fatalf("ran %d README commands; the README has more", ran)
	}
}

// readmeBlock is one fenced code block.
type readmeBlock struct {
	lang  string
	line  int // of the opening fence
	lines []string
}

// placeholder reports whether a line of b has something to fill in.
func (b readmeBlock) placeholder() bool {
	for _, l := range b.lines {
		if regexp.MustCompile(`<[a-z][a-z ]*>`).MatchString(l) {
			return true
		}
	}
	return false
}

func readmeBlocks(text string) []readmeBlock {
	var blocks []readmeBlock
	var cur *readmeBlock
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(l, "```"):
			cur = &readmeBlock{lang: strings.TrimSpace(strings.TrimPrefix(l, "```")), line: n}
		case cur != nil && l == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, l)
		}
	}
	return blocks
}

// copyWorkingTree copies what git tracks or would track (not what it
// ignores: bin/, node_modules, a walk-through's failure.json) from src to
// dst: a fresh clone of the working tree as it is.
func copyWorkingTree(t *testing.T, src, dst string) {
	t.Helper()
	out, err := exec.Command("git", "-C", src, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		from, to := filepath.Join(src, f), filepath.Join(dst, f)
		st, err := os.Lstat(from)
		if err != nil {
			continue // deleted in the working tree
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		switch {
		case st.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(from)
			err = os.Symlink(target, to)
		case st.Mode().IsRegular():
			var data []byte
			if data, err = os.ReadFile(from); err == nil {
				err = os.WriteFile(to, data, st.Mode().Perm())
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// readmeEnv is the environment the README's commands run in: HOME in the
// temporary directory, Go's caches where they are (HOME would move them),
// no module downloads, the managed server, and a PATH with no interleave
// on it.
func readmeEnv(t *testing.T, home string) []string {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "PATH", "GOPATH", "GOMODCACHE", "GOCACHE", "GOPROXY", "GOSUMDB", "TEST_DATABASE_URL", "INTERLEAVE_PROGRAM_DIR":
			continue
		}
		env = append(env, kv)
	}
	for _, k := range []string{"GOPATH", "GOMODCACHE", "GOCACHE"} {
		out, err := exec.Command("go", "env", k).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", k, err)
		}
		env = append(env, k+"="+strings.TrimSpace(string(out)))
	}
	var path []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, "interleave")); err == nil {
			continue // the README must put it there itself
		}
		path = append(path, dir)
	}
	return append(env, "HOME="+home, "PATH="+strings.Join(path, string(os.PathListSeparator)),
		"GOPROXY=off", "GOSUMDB=off", "TEST_DATABASE_URL=")
}

// commandResult is one README command run.
type commandResult struct {
	line           int
	cmd            string
	want, code     int
	stdout, stderr string
}

var exitComment = regexp.MustCompile(`#.*\bexit (\d+)`)

// runBlock runs the commands of b one after another in one shell, from
// the repository's root, as a user pasting them would: a cd or an export
// carries to the next line.
func runBlock(t *testing.T, repo string, env []string, b readmeBlock) []commandResult {
	t.Helper()
	dir := t.TempDir()
	var script strings.Builder
	fmt.Fprintf(&script, "cd %q || exit 99\nexec 3>%q\n", repo, filepath.Join(dir, "codes"))
	var results []commandResult
	for i, l := range b.lines {
		cmd := strings.TrimSpace(l)
		if cmd == "" || strings.HasPrefix(cmd, "#") {
			continue
		}
		if strings.HasPrefix(cmd, "./scripts/test") {
			t.Logf("README line %d: not run, it is the suite this test is part of: %s", b.line+1+i, cmd)
			continue
		}
		r := commandResult{line: b.line + 1 + i, cmd: cmd}
		if m := exitComment.FindStringSubmatch(cmd); m != nil {
			r.want, _ = strconv.Atoi(m[1])
		}
		n := len(results)
		fmt.Fprintf(&script, "{\n%s\n} >%q 2>%q </dev/null; echo \"%d $?\" >&3\n", l, filepath.Join(dir, strconv.Itoa(n)), filepath.Join(dir, strconv.Itoa(n)+".err"), n)
		results = append(results, r)
	}
	sh := exec.Command("bash", "-c", script.String())
	sh.Env = env
	if out, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("README line %d: the block's shell failed: %v\n%s", b.line, err, out)
	}
	codes, err := os.ReadFile(filepath.Join(dir, "codes"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(codes)), "\n") {
		var n, code int
		if _, err := fmt.Sscanf(l, "%d %d", &n, &code); err != nil || n >= len(results) {
			t.Fatalf("exit codes: %q", codes)
		}
		results[n].code = code
		o, _ := os.ReadFile(filepath.Join(dir, strconv.Itoa(n)))
		e, _ := os.ReadFile(filepath.Join(dir, strconv.Itoa(n)+".err"))
		results[n].stdout, results[n].stderr = string(o), string(e)
	}
	return results
}

// timings masks what differs from run to run.
var timings = regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|us|ms|s|m|h)\b`)

func normalizeOutput(s, repo string) string {
	s = strings.ReplaceAll(s, repo+"/", "")
	s = timings.ReplaceAllString(s, "<time>")
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		lines = append(lines, strings.TrimRight(l, " \t"))
	}
	return strings.Join(lines, "\n")
}

// checkSample compares a sample output with what the command it shows
// printed.
func checkSample(t *testing.T, sample readmeBlock, results []commandResult, repo string) {
	t.Helper()
	if msg := sampleMismatch(sample, results, repo); msg != "" {
		t.Error(msg)
	}
}

// sampleMismatch says how a sample output differs from what the command
// it shows printed ("" when it does not): that command is the one whose
// output starts with the sample's first word ("counter:", "oversell:").
func sampleMismatch(sample readmeBlock, results []commandResult, repo string) string {
	if len(sample.lines) == 0 {
		return fmt.Sprintf("README line %d: an empty sample output", sample.line)
	}
	first, _, _ := strings.Cut(sample.lines[0], " ")
	want := normalizeOutput(strings.Join(sample.lines, "\n"), repo)
	for _, r := range results {
		if !strings.HasPrefix(r.stdout, first+" ") {
			continue
		}
		if got := normalizeOutput(r.stdout, repo); got != want {
			return fmt.Sprintf("README line %d: the sample output of `%s` is not what it prints.\n--- README\n%s\n--- printed\n%s", sample.line, r.cmd, want, got)
		}
		return ""
	}
	return fmt.Sprintf("README line %d: no command of the block above prints the sample output starting %q", sample.line, first)
}

// The comparison itself, without PostgreSQL: the README's stale demo
// sample of issue 20 (5 pending prefixes, no Reduction line) is caught,
// timings and the copy's path are not differences.
func TestREADMESampleComparison(t *testing.T) {
	printed := "oversell: 1 attempted, 1 completed; violations: 1; failure.\n" +
		"Search: fifo; pending prefixes: 4; maximum attempted depth: 0.\n" +
		"Reduction: 1 of 5 alternative orders skipped as equivalent to orders explored.\n" +
		"Saved /tmp/x/interleave/failure.json after 1.5s\n"
	results := []commandResult{{cmd: "./scripts/build"}, {cmd: "./scripts/demo", stdout: printed}}
	current := readmeBlock{line: 34, lines: []string{
		"oversell: 1 attempted, 1 completed; violations: 1; failure.",
		"Search: fifo; pending prefixes: 4; maximum attempted depth: 0.",
		"Reduction: 1 of 5 alternative orders skipped as equivalent to orders explored.",
		"Saved failure.json after 80ms",
	}}
	if msg := sampleMismatch(current, results, "/tmp/x/interleave"); msg != "" {
		t.Errorf("a sample that matches is reported: %s", msg)
	}
	stale := readmeBlock{line: 34, lines: []string{
		"oversell: 1 attempted, 1 completed; violations: 1; failure.",
		"Search: fifo; pending prefixes: 5; maximum attempted depth: 0.",
		"Saved failure.json after 80ms",
	}}
	if msg := sampleMismatch(stale, results, "/tmp/x/interleave"); !strings.Contains(msg, "is not what it prints") || !strings.Contains(msg, "./scripts/demo") {
		t.Errorf("the stale sample is not caught: %q", msg)
	}
	other := readmeBlock{line: 34, lines: []string{"counter: 1 attempted"}}
	if msg := sampleMismatch(other, results, "/tmp/x/interleave"); !strings.Contains(msg, "no command of the block above prints") {
		t.Errorf("a sample no command prints is not caught: %q", msg)
	}
}

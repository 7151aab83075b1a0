package pgserver

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/pginterleave/interleave/pgserver/pginstall"
)

// ErrNoBinaries reports that initdb and postgres could not be found.
var ErrNoBinaries = errors.New("PostgreSQL's initdb and postgres were not found; run `interleave postgres install` (or install PostgreSQL with your package manager), or name their directory (Options.Server.PGBin, or INTERLEAVE_PG_BIN)")

// Candidate is a directory holding PostgreSQL's initdb and postgres.
type Candidate struct {
	Dir    string
	Source string // where it was found: PATH, Homebrew, Postgres.app, ...
	Major  int    // from the directory's name; 0 when it does not say
}

// FindBinDir returns the directory holding initdb and postgres: explicit
// when not empty, else $INTERLEAVE_PG_BIN, else the first of Candidates().
func FindBinDir(explicit string) (string, error) {
	if explicit != "" {
		if hasServerBinaries(explicit, runtime.GOOS) {
			return explicit, nil
		}
		return "", fmt.Errorf("%s does not contain initdb and postgres: %w", explicit, ErrNoBinaries)
	}
	if dir := os.Getenv("INTERLEAVE_PG_BIN"); dir != "" {
		if hasServerBinaries(dir, runtime.GOOS) {
			return dir, nil
		}
		return "", fmt.Errorf("INTERLEAVE_PG_BIN=%s does not contain initdb and postgres: %w", dir, ErrNoBinaries)
	}
	if c := Candidates(); len(c) > 0 {
		return c[0].Dir, nil
	}
	return "", ErrNoBinaries
}

// Candidates lists every directory on this machine that holds PostgreSQL's
// server binaries, in the order FindBinDir prefers them: what the user's
// shell finds (PATH, then `pg_config --bindir`), then the places installers
// put them, newest major first: Debian/Ubuntu (/usr/lib/postgresql/N/bin),
// the PGDG RPMs (/usr/pgsql-N/bin), Homebrew (versioned formulae under
// /opt/homebrew and /usr/local, and Linuxbrew), Postgres.app, the EDB
// installer on Windows (Program Files\PostgreSQL\N\bin), asdf and mise
// installs, and `interleave postgres install`'s cache (a tree there only
// if pginstall.Check accepts it: one another user could have planted or
// changed is skipped).
func Candidates() []Candidate { return liveSearch().candidates() }

// searchEnv is what discovery looks at; tests hand it a fake tree.
type searchEnv struct {
	goos     string
	root     string // prefix of the well-known absolute locations ("" here)
	home     string
	getenv   func(string) string
	lookPath func(string) (string, error)
	pgConfig func() string // `pg_config --bindir`, "" when there is none
	caches   []string      // install cache directories
	platform string        // the install cache's platform name
	// checkInstall vets a bin directory in an install cache before it is
	// used (pginstall.Check: owned by this user or root, writable by no
	// one else, the package's files); nil accepts it.
	checkInstall func(binDir string) error
}

// installSource is the Source of a directory in `interleave postgres
// install`'s cache.
const installSource = "interleave postgres install"

func liveSearch() searchEnv {
	home, _ := os.UserHomeDir()
	env := searchEnv{goos: runtime.GOOS, home: home, getenv: os.Getenv, lookPath: exec.LookPath}
	env.pgConfig = func() string {
		p, err := exec.LookPath("pg_config")
		if err != nil {
			return ""
		}
		out, err := exec.Command(p, "--bindir").Output()
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(out))
	}
	if dir, err := pginstall.DefaultCacheDir(); err == nil {
		env.caches = append(env.caches, dir)
	}
	if runtime.GOOS != "windows" && (len(env.caches) == 0 || env.caches[0] != "/var/cache/interleave/pg") {
		env.caches = append(env.caches, "/var/cache/interleave/pg") // a root install, usable by all
	}
	env.platform, _ = pginstall.CurrentPlatform()
	env.checkInstall = pginstall.Check
	return env
}

func (e searchEnv) candidates() []Candidate {
	var out []Candidate
	seen := map[string]bool{}
	add := func(c Candidate) {
		if c.Dir == "" || seen[filepath.Clean(c.Dir)] || !hasServerBinaries(c.Dir, e.goos) {
			return
		}
		seen[filepath.Clean(c.Dir)] = true
		out = append(out, c)
	}
	if p, err := e.lookPath(executableName("initdb", e.goos)); err == nil {
		add(Candidate{Dir: filepath.Dir(p), Source: "PATH"})
	}
	if e.pgConfig != nil {
		add(Candidate{Dir: e.pgConfig(), Source: "pg_config"})
	}
	var known []Candidate
	for _, loc := range e.locations() {
		matches, _ := filepath.Glob(loc.pattern)
		sort.Strings(matches)
		for _, m := range matches {
			known = append(known, Candidate{Dir: m, Source: loc.source, Major: loc.major(m)})
		}
	}
	// Newest major first; a directory whose name gives no major goes after
	// those that do, in the order of the list above.
	sort.SliceStable(known, func(i, j int) bool { return known[i].Major > known[j].Major })
	for _, c := range known {
		// A tree in an install cache that another user could have planted
		// or changed is not used (`interleave postgres install` replaces it).
		if c.Source == installSource && e.checkInstall != nil && e.checkInstall(c.Dir) != nil {
			continue
		}
		add(c)
	}
	return out
}

// location is a glob of bin directories and how to read a major from one.
type location struct {
	pattern, source string
	major           func(dir string) int
}

func (e searchEnv) locations() []location {
	abs := func(p string) string { return filepath.Join(e.root, filepath.FromSlash(p)) }
	named := func(up int) func(string) int { return func(dir string) int { return majorOf(nthParent(dir, up)) } }
	var locs []location
	switch e.goos {
	case "linux":
		locs = append(locs,
			location{abs("/usr/lib/postgresql/*/bin"), "Debian/Ubuntu package", named(1)},
			location{abs("/usr/pgsql-*/bin"), "PGDG package", func(d string) int { return majorOf(strings.TrimPrefix(nthParent(d, 1), "pgsql-")) }},
			location{abs("/home/linuxbrew/.linuxbrew/opt/postgresql@*/bin"), "Homebrew", homebrewMajor},
		)
	case "darwin":
		locs = append(locs,
			location{abs("/opt/homebrew/opt/postgresql@*/bin"), "Homebrew", homebrewMajor},
			location{abs("/usr/local/opt/postgresql@*/bin"), "Homebrew", homebrewMajor},
			location{abs("/Applications/Postgres.app/Contents/Versions/*/bin"), "Postgres.app", named(1)},
			location{abs("/opt/homebrew/opt/postgresql/bin"), "Homebrew", named(-1)},
			location{abs("/opt/homebrew/bin"), "Homebrew", named(-1)},
			location{abs("/usr/local/opt/postgresql/bin"), "Homebrew", named(-1)},
		)
	case "windows":
		for _, pf := range []string{e.getenv("ProgramFiles"), e.getenv("ProgramW6432"), `C:\Program Files`} {
			if pf != "" {
				locs = append(locs, location{filepath.Join(pf, "PostgreSQL", "*", "bin"), "EDB installer", named(1)})
			}
		}
	}
	if e.goos != "windows" && e.home != "" {
		asdf := e.getenv("ASDF_DATA_DIR")
		if asdf == "" {
			asdf = filepath.Join(e.home, ".asdf")
		}
		mise := e.getenv("MISE_DATA_DIR")
		if mise == "" {
			mise = filepath.Join(e.home, ".local", "share", "mise")
		}
		locs = append(locs,
			location{filepath.Join(asdf, "installs", "postgres", "*", "bin"), "asdf", named(1)},
			location{filepath.Join(mise, "installs", "postgres", "*", "bin"), "mise", named(1)},
		)
	}
	for _, cache := range e.caches {
		if e.platform != "" {
			locs = append(locs, location{filepath.Join(cache, "*-"+e.platform, "bin"), installSource,
				func(d string) int { return majorOf(strings.TrimSuffix(nthParent(d, 1), "-"+e.platform)) }})
		}
	}
	return locs
}

// nthParent is the name of dir's n-th parent (1: the directory above bin);
// n < 0 gives "".
func nthParent(dir string, n int) string {
	if n < 0 {
		return ""
	}
	for i := 0; i < n; i++ {
		dir = filepath.Dir(dir)
	}
	return filepath.Base(dir)
}

func homebrewMajor(dir string) int {
	_, v, _ := strings.Cut(nthParent(dir, 1), "@")
	return majorOf(v)
}

// majorOf reads a major version from "17", "17.2", "9.6" (9), or 0.
func majorOf(s string) int {
	head, _, _ := strings.Cut(s, ".")
	n, err := strconv.Atoi(head)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

func executableName(name, goos string) string {
	if goos == "windows" {
		return name + ".exe"
	}
	return name
}

func hasServerBinaries(dir, goos string) bool {
	for _, name := range []string{"initdb", "postgres"} {
		st, err := os.Stat(filepath.Join(dir, executableName(name, goos)))
		if err != nil || st.IsDir() || (goos != "windows" && st.Mode()&0o111 == 0) {
			return false
		}
	}
	return true
}

// ServerVersion is what `postgres --version` says in dir, or "".
func ServerVersion(dir string) string {
	out, err := exec.Command(filepath.Join(dir, executableName("postgres", runtime.GOOS)), "--version").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

package pgserver

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ErrNoBinaries reports that initdb and postgres could not be found.
var ErrNoBinaries = errors.New("PostgreSQL's initdb and postgres were not found; install them (apt-get install -y postgresql) or pass --pg-bin DIR / set INTERLEAVE_PG_BIN")

// FindBinDir returns the directory holding initdb and postgres. It looks, in
// order, at explicit (when not empty), $INTERLEAVE_PG_BIN, PATH,
// `pg_config --bindir` and /usr/lib/postgresql/*/bin (newest major first).
func FindBinDir(explicit string) (string, error) {
	if explicit != "" {
		if hasServerBinaries(explicit) {
			return explicit, nil
		}
		return "", fmt.Errorf("%s does not contain initdb and postgres: %w", explicit, ErrNoBinaries)
	}
	if dir := os.Getenv("INTERLEAVE_PG_BIN"); dir != "" {
		if hasServerBinaries(dir) {
			return dir, nil
		}
		return "", fmt.Errorf("INTERLEAVE_PG_BIN=%s does not contain initdb and postgres: %w", dir, ErrNoBinaries)
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		if dir := filepath.Dir(p); hasServerBinaries(dir) {
			return dir, nil
		}
	}
	if p, err := exec.LookPath("pg_config"); err == nil {
		if out, err := exec.Command(p, "--bindir").Output(); err == nil {
			if dir := strings.TrimSpace(string(out)); hasServerBinaries(dir) {
				return dir, nil
			}
		}
	}
	for _, dir := range debianBinDirs() {
		if hasServerBinaries(dir) {
			return dir, nil
		}
	}
	return "", ErrNoBinaries
}

// debianBinDirs lists /usr/lib/postgresql/<major>/bin, newest major first.
func debianBinDirs() []string {
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	major := func(p string) int {
		n, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		return n
	}
	sort.Slice(matches, func(i, j int) bool { return major(matches[i]) > major(matches[j]) })
	return matches
}

func hasServerBinaries(dir string) bool {
	for _, name := range []string{"initdb", "postgres"} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			return false
		}
	}
	return true
}

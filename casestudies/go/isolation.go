package gostudies

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/pginterleave/interleave/pgserver"
)

// Isolation is one run of PostgreSQL's isolation tester on a spec that
// transcribes a variant's SQL: every permutation of its steps.
type Isolation struct {
	Permutations int
	// WithError counts permutations in which a step failed.
	WithError int
	// Errors counts the error lines, first line of each.
	Errors map[string]int
}

// FindIsolationTester is the isolationtester binary that belongs to the
// server binaries in binDir (PostgreSQL installs it under
// lib/pgxs/src/test/isolation; binDir may hold symbolic links to them),
// or an error that says how to get one.
func FindIsolationTester(binDir string) (string, error) {
	if p := os.Getenv("INTERLEAVE_ISOLATIONTESTER"); p != "" {
		return p, nil
	}
	dirs := []string{binDir}
	if real, err := filepath.EvalSymlinks(filepath.Join(binDir, "postgres")); err == nil {
		dirs = append(dirs, filepath.Dir(real))
	}
	var candidates []string
	for _, d := range dirs {
		candidates = append(candidates,
			filepath.Join(d, "..", "lib", "pgxs", "src", "test", "isolation", "isolationtester"),
			filepath.Join(d, "..", "lib", "postgresql", "pgxs", "src", "test", "isolation", "isolationtester"))
	}
	for _, c := range candidates {
		if st, err := os.Stat(c); err == nil && !st.IsDir() {
			return filepath.Clean(c), nil
		}
	}
	return "", fmt.Errorf("PostgreSQL's isolationtester was not found beside %s; install the server's development package (postgresql-server-dev-15) or set INTERLEAVE_ISOLATIONTESTER", binDir)
}

// RunIsolation runs the isolation tester at tester on spec against a
// fresh database of srv.
func RunIsolation(ctx context.Context, tester string, srv pgserver.Server, spec string) (*Isolation, error) {
	text, err := os.ReadFile(spec)
	if err != nil {
		return nil, err
	}
	db, err := srv.CreateDatabase(ctx)
	if err != nil {
		return nil, err
	}
	defer srv.DropDatabase(context.Background(), db)
	url, err := DirectURL(srv, db)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, tester, url)
	cmd.Stdin = bytes.NewReader(text)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return nil, err
		}
		return nil, fmt.Errorf("isolationtester %s: %v: %s", filepath.Base(spec), err, strings.TrimSpace(stderr.String()))
	}
	return parseIsolation(out.String()), nil
}

// parseIsolation reads the tester's output: a "starting permutation:"
// line per permutation, "ERROR:  ..." for a failed step.
func parseIsolation(out string) *Isolation {
	iso := &Isolation{Errors: map[string]int{}}
	failed := false
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "starting permutation:"):
			iso.Permutations++
			failed = false
		case strings.Contains(line, "ERROR:"):
			msg := strings.TrimSpace(line[strings.Index(line, "ERROR:")+len("ERROR:"):])
			iso.Errors[msg]++
			if !failed {
				iso.WithError++
				failed = true
			}
		}
	}
	return iso
}

package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave/pgserver"
	"github.com/pginterleave/interleave/supervise"
)

// `interleave clean` after a run killed with kill -9 together with its
// watchdog: the server still running in its directory is stopped, the
// directories are removed and the run's database on the dedicated server is
// dropped; a directory and databases it does not own are left alone.
func TestCleanRemovesWhatKilledRunsLeftAndNothingElse(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tmp := t.TempDir()
	if err := os.Chmod(tmp, 0o755); err != nil { // the server's account must reach it as root
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "interleave")
	leftover := filepath.Join(t.TempDir(), "leftover")
	for pkg, out := range map[string]string{".": bin, "../../internal/testkit/testprog/leftover": leftover} {
		if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", pkg, err, b)
		}
	}
	dedicated, err := pgserver.StartLocal(ctx, pgserver.LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dedicated.Close() })
	url := dedicated.ConnString("postgres")

	// Bystanders: a directory without a record, an application's database
	// and one with Interleave's name but not its mark.
	bystanderDir := filepath.Join(tmp, "interleave-pg-not-ours")
	if err := os.MkdirAll(filepath.Join(bystanderDir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, db := range []string{"app_data", "interleave_00000000cafef00d"} {
		if _, err := conn.Exec(ctx, "CREATE DATABASE "+db); err != nil {
			t.Fatal(err)
		}
	}

	cmd := exec.Command(leftover)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "INTERLEAVE_SUPERVISE=portable", "LEFTOVER_DATABASE_URL="+url)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	var left struct {
		Root, Build, Database string
		Postmaster            int
	}
	if jerr := json.Unmarshal(out, &left); jerr != nil {
		t.Fatalf("leftover printed %q (%v, %v)", out, err, jerr)
	}
	t.Cleanup(func() { _ = exec.Command("kill", "-KILL", "--", "-"+strconv.Itoa(left.Postmaster)).Run() })
	if !supervise.Alive(left.Postmaster) {
		t.Fatal("the killed run's server should still be running")
	}

	clean := func(args ...string) string {
		c := exec.Command(bin, append([]string{"clean"}, args...)...)
		c.Env = append(os.Environ(), "TMPDIR="+tmp)
		b, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("interleave clean %v: %v\n%s", args, err, b)
		}
		return string(b)
	}
	// The database is unheld once the server has seen the killed run's
	// connection close.
	waitFor(t, "the killed run's database to be unheld", func() bool {
		return strings.Contains(clean("--dry-run", "--database-url", url), "would drop database "+left.Database)
	})
	dry := clean("--dry-run", "--database-url", url)
	for _, want := range []string{"would remove " + left.Root, "would remove " + left.Build, "would stop pids [" + strconv.Itoa(left.Postmaster) + "]"} {
		if !strings.Contains(dry, want) {
			t.Errorf("clean --dry-run does not say %q:\n%s", want, dry)
		}
	}
	if !supervise.Alive(left.Postmaster) {
		t.Fatal("a dry run stopped the server")
	}
	got := clean("--database-url", url)
	for _, want := range []string{"removed " + left.Root, "removed " + left.Build, "dropped database " + left.Database,
		"kept database interleave_00000000cafef00d: it has no Interleave mark"} {
		if !strings.Contains(got, want) {
			t.Errorf("clean does not say %q:\n%s", want, got)
		}
	}
	if supervise.Alive(left.Postmaster) {
		t.Error("the leftover server is still running")
	}
	for _, dir := range []string{left.Root, left.Build} {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s is still there", dir)
		}
	}
	if _, err := os.Stat(bystanderDir); err != nil {
		t.Errorf("clean touched %s: %v", bystanderDir, err)
	}
	rows, _ := conn.Query(ctx, "SELECT datname FROM pg_database")
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(names, left.Database) || !slices.Contains(names, "app_data") || !slices.Contains(names, "interleave_00000000cafef00d") {
		t.Errorf("databases after clean: %v", names)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for pause := time.Millisecond; !cond(); pause = min(2*pause, 100*time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(pause)
	}
}

package pgserver

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// A dedicated server's databases: a run killed with kill -9 leaves its
// database behind; a sweep drops that one and nothing else (not a live
// run's, not one without Interleave's mark, not one someone is connected
// to, not an application's).
func TestSweepDatabasesDropsOnlyWhatKilledRunsLeft(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	srv, err := StartLocal(ctx, LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	url := srv.ConnString("postgres")

	// A run killed outright.
	helper := exec.Command(os.Args[0])
	helper.Env = append(os.Environ(), serverHelperEnv+"=createdb", "PGSERVER_TEST_URL="+url)
	helper.Stderr = os.Stderr
	out, _ := helper.StdoutPipe()
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	killed := strings.TrimSpace(line)
	if !IsOwnedName(killed) {
		_ = helper.Process.Kill()
		t.Fatalf("the helper run created no database: %q", line)
	}
	// A live run.
	live, err := OpenExternal(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = live.Close() })
	liveDB, err := live.CreateDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Bystanders.
	admin, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	unmarked, app, busy := "interleave_00000000deadbeef", "app_interleave_data", "interleave_0123456789abcdef"
	for _, name := range []string{unmarked, app, busy} {
		if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := admin.Exec(ctx, "COMMENT ON DATABASE "+busy+" IS "+quoteLiteral(ownerComment())); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, srv.ConnString(busy))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)

	_ = helper.Process.Signal(syscall.SIGKILL)
	_ = helper.Wait()
	// The server notices the dead run's connection closing on its own time.
	waitUntil(t, "the killed run's lock to be released", func() bool {
		res, err := SweepDatabases(ctx, url, DatabaseSweepOptions{DryRun: true})
		return err == nil && len(res.Dropped) == 1 && res.Dropped[0].Name == killed
	})
	res, err := SweepDatabases(ctx, url, DatabaseSweepOptions{MinAge: DefaultDatabaseMinAge})
	if err != nil || len(res.Dropped) != 0 {
		t.Fatalf("a sweep with the default minimum age dropped %+v (%v); the leftover is younger", res.Dropped, err)
	}
	res, err = SweepDatabases(ctx, url, DatabaseSweepOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Dropped) != 1 || res.Dropped[0].Name != killed {
		t.Fatalf("dropped %+v; want only %s", res.Dropped, killed)
	}
	var names []string
	rows, _ := admin.Query(ctx, "SELECT datname FROM pg_database")
	names, err = pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(names, killed) {
		t.Fatalf("%s is still there", killed)
	}
	for _, want := range []string{liveDB, unmarked, app, busy} {
		if !slices.Contains(names, want) {
			t.Errorf("the sweep dropped %s", want)
		}
	}
	kept := map[string]string{}
	for _, k := range res.Kept {
		kept[k.Name] = k.Reason
	}
	for name, why := range map[string]string{liveDB: "live run", unmarked: "no Interleave mark", busy: "connected"} {
		if !strings.Contains(kept[name], why) {
			t.Errorf("%s kept for %q; want a reason mentioning %q", name, kept[name], why)
		}
	}
	if err := live.DropDatabase(ctx, liveDB); err != nil {
		t.Fatal(err)
	}
}

package browsertest_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/internal/testkit/golden"
	"github.com/pginterleave/interleave/internal/testkit/poll"
	"github.com/pginterleave/interleave/pgserver"
	"github.com/pginterleave/interleave/report"
)

// reservation: alice locks row 1 (BEGIN; SELECT ... FOR UPDATE), runs the
// hostile statement and commits; bob's UPDATE of the row is released while
// she holds the lock and waits on her. The invariant says the reserved row
// must not change, so the attempt is a violation.
func reservation() interleave.Scenario {
	return interleave.Scenario{
		Name: "reservation",
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, "CREATE TABLE t (id int PRIMARY KEY, v int NOT NULL); INSERT INTO t VALUES (1, 0)")
			return err
		},
		Actors: []interleave.Actor{
			{Name: "alice", Run: func(ctx context.Context, cs string) (any, error) {
				c, err := pgx.Connect(ctx, cs)
				if err != nil {
					return nil, err
				}
				defer c.Close(ctx)
				tx, err := c.Begin(ctx)
				if err != nil {
					return nil, err
				}
				if _, err := tx.Exec(ctx, "SELECT v FROM t WHERE id = 1 FOR UPDATE"); err != nil {
					return nil, err
				}
				if _, err := tx.Exec(ctx, hostile); err != nil {
					return nil, err
				}
				return "reserved", tx.Commit(ctx)
			}},
			{Name: "bob", Run: func(ctx context.Context, cs string) (any, error) {
				c, err := pgx.Connect(ctx, cs)
				if err != nil {
					return nil, err
				}
				defer c.Close(ctx)
				if _, err := c.Exec(ctx, "SELECT 1"); err != nil {
					return nil, err
				}
				_, err = c.Exec(ctx, "UPDATE t SET v = v + $1 WHERE id = 1", 1)
				return "updated", err
			}},
		},
		Invariant: func(ctx context.Context, db *pgx.Conn, _ []interleave.ActorResult) error {
			var v int
			if err := db.QueryRow(ctx, "SELECT v FROM t WHERE id = 1").Scan(&v); err != nil {
				return err
			}
			if v != 0 {
				return fmt.Errorf("Row 1 was reserved by alice, yet bob changed it: v = %d, want 0", v)
			}
			return nil
		},
	}
}

// recordReservation runs the scenario once on a managed PostgreSQL and
// returns its artifact, after checking it has what the page must show.
func recordReservation(t *testing.T, ctx context.Context) *artifact.Artifact {
	t.Helper()
	srv, err := pgserver.StartLocal(ctx, pgserver.LocalOptions{})
	if err != nil {
		t.Fatalf("this test needs PostgreSQL's server binaries (scripts/ensure-deps postgres): %v", err)
	}
	defer srv.Close()
	res, err := interleave.RunOnce(ctx, reservation(), interleave.Options{Server: interleave.ServerOptions{Use: srv}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomeViolation || !strings.Contains(res.Message, "yet bob changed it") {
		t.Fatalf("outcome %s: %s; want the violation", res.Outcome, res.Message)
	}
	a := res.Artifact
	if w := waitedUnit(a); w == nil || !strings.HasPrefix(w.SQL[0], "UPDATE") || strings.Join(w.LockWaits[0].BlockingActors, ",") != "alice" {
		t.Fatalf("the run recorded no wait of bob's UPDATE on alice; units: %+v", a.Units)
	}
	if findSQL(a, hostile) == nil {
		t.Fatalf("no unit ran %s", hostile)
	}
	return a
}

func waitedUnit(a *artifact.Artifact) *artifact.Unit {
	for i, u := range a.Units {
		if u.Actor == "bob" && len(u.LockWaits) > 0 {
			return &a.Units[i]
		}
	}
	return nil
}

func findSQL(a *artifact.Artifact, sql string) *artifact.Unit {
	for i, u := range a.Units {
		if !u.Prepare && len(u.SQL) > 0 && u.SQL[0] == sql {
			return &a.Units[i]
		}
	}
	return nil
}

func unitID(u *artifact.Unit) string { return fmt.Sprintf("%s %d.%d", u.Actor, u.Conn, u.Unit) }

// TestReportInChromium renders a real run (PostgreSQL, proxies, scheduler)
// and the hand-built sample, and checks in Chromium what a reader sees and
// can do, at 1280x800.
func TestReportInChromium(t *testing.T) {
	tb := newTab(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	a := recordReservation(t, ctx)
	waited, hostileUnit := waitedUnit(a), findSQL(a, hostile)

	dir := t.TempDir()
	file := writePage(t, dir, "report.html", a, report.Options{ReplayCommand: "interleave replay ./examples/reservation failure.json", FileName: "failure.json"})
	sampleFile := writePage(t, dir, "sample.html", sample(), report.Options{})
	pageURL := tb.load(file)

	checkStatic(tb, a, waited)
	checkCounts(tb, a)
	// The failing step of the reservation is bob's UPDATE of the reserved
	// row, which waited on alice's lock.
	checkFailingInView(tb, unitID(waited), true)
	checkLegend(tb)
	// The screenshot as the page opens at 1280 px, with the failing step
	// in the inspector. The committed one in docs/ changes only with -update.
	shot := tb.screenshot("report.png")
	if golden.Updating() {
		if err := os.WriteFile(filepath.Join("..", "..", "docs", "report-screenshot.png"), shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	encoded, err := artifact.Encode(a)
	if err != nil {
		t.Fatal(err)
	}
	if got := download(tb, "failure.json"); !bytes.Equal(got, encoded) {
		t.Errorf("Download JSON saved %d bytes that differ from the artifact's encoding (%d bytes)", len(got), len(encoded))
	}
	checkKeyboard(tb, waited, hostileUnit)
	checkCopy(tb, "interleave replay ./examples/reservation failure.json")
	checkFilters(tb, a)
	checkLayouts(tb)
	tb.clean(pageURL)

	// The hand-built sample has what the real run lacks: an error, a pair,
	// a choice, a unit never released, a cancel request, parameters.
	sampleURL := tb.load(sampleFile)
	checkSample(tb)
	checkCounts(tb, sample())
	checkLegend(tb)
	tb.clean(pageURL, sampleURL)

	// The dialog listener works: a dialog opened from DevTools is seen.
	tb.run("open a control dialog", chromedp.Evaluate[chromedp.Void](`setTimeout(() => alert('control'), 0)`))
	var gotDialogs []string
	poll.Until(t, "the control dialog to be recorded", func() bool {
		gotDialogs, _, _ = tb.log.snapshot()
		return len(gotDialogs) > 0
	})
	if fmt.Sprint(gotDialogs) != "[alert: control]" {
		t.Errorf("the control dialog was recorded as %v; the dialog check proves nothing", gotDialogs)
	}
}

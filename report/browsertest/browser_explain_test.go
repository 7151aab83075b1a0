package browsertest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pginterleave/interleave/engine"
	"github.com/pginterleave/interleave/explain"
	"github.com/pginterleave/interleave/internal/testkit/fixture"
	"github.com/pginterleave/interleave/internal/testkit/golden"
	"github.com/pginterleave/interleave/pgserver"
	"github.com/pginterleave/interleave/report"
)

// TestReportDrawsTheCycle finds and explains a lost update on PostgreSQL,
// renders the report with the explanation, and checks in Chromium that the
// page names the anomaly, draws one arrow per dependency of the cycle over
// the lanes and marks the critical pair, breaking no rule of the page.
// With -update it writes docs/report-cycle.png.
func TestReportDrawsTheCycle(t *testing.T) {
	tb := newTab(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	srv, err := pgserver.StartLocal(ctx, pgserver.LocalOptions{})
	if err != nil {
		t.Fatalf("this test needs PostgreSQL's server binaries (scripts/ensure-deps postgres): %v", err)
	}
	defer srv.Close()
	o := engine.Options{Server: engine.ServerOptions{Use: srv}}
	o.Search.Workers = 1
	res, err := engine.Explore(ctx, fixture.Withdrawals(), o)
	if err != nil || res.Outcome != engine.OutcomeViolation {
		t.Fatalf("search: %v %v", err, res)
	}
	x, err := engine.Explain(ctx, fixture.Withdrawals(), res.Artifact, engine.ExplainOptions{Options: o})
	if err != nil {
		t.Fatal(err)
	}
	if x.Anomaly.Name != explain.LostUpdate || len(x.Cycle) != 2 || x.CriticalPair == nil || !x.CriticalPair.Found {
		t.Fatalf("explanation: %s", x.Text())
	}
	file := writePage(t, t.TempDir(), "report.html", res.Artifact, report.Options{ReplayCommand: "interleave replay . failure.json", Explanation: x})
	tb.load(file)

	var got struct {
		Shown    bool
		Name     string
		Edges    int
		Labels   []string
		Critical []string
		Fix      string
	}
	tb.eval(`({
		shown: !document.getElementById('explain-section').hidden,
		name: document.querySelector('.explain-name strong').textContent,
		edges: document.querySelectorAll('.cycle-edge').length,
		labels: [...document.querySelectorAll('.cycle-label')].map((e) => e.textContent),
		critical: [...document.querySelectorAll('.unit-box.critical')].map((e) => e.dataset.step),
		fix: document.querySelector('.explain-fix').textContent,
	})`, &got)
	if !got.Shown || got.Name != "lost update" || got.Edges != 2 || len(got.Labels) != 2 {
		t.Fatalf("the page shows %+v; want the lost update and its two dependencies drawn", got)
	}
	want := []string{fmt.Sprint(x.CriticalPair.First), fmt.Sprint(x.CriticalPair.Second)}
	if strings.Join(got.Critical, ",") != strings.Join(want, ",") {
		t.Errorf("critical boxes at steps %v, want %v", got.Critical, want)
	}
	if !strings.Contains(got.Fix, "REPEATABLE READ prevents this if the code retries on 40001") {
		t.Errorf("fix %q", got.Fix)
	}
	// Each arrow starts and ends on the timeline's grid, between lanes.
	var inside bool
	tb.eval(`(() => {
		const g = document.querySelector('.tl-grid').getBoundingClientRect();
		return [...document.querySelectorAll('.cycle-edge')].every((e) => {
			const r = e.getBoundingClientRect();
			return r.width > 0 && r.left >= g.left - 1 && r.right <= g.right + 1 && r.top >= g.top - 1 && r.bottom <= g.bottom + 1;
		});
	})()`, &inside)
	if !inside {
		t.Error("an arrow of the cycle lies outside the timeline")
	}
	tb.clean("file://" + file)
	shot := tb.screenshot("report-cycle.png")
	if golden.Updating() {
		if err := os.WriteFile(filepath.Join("..", "..", "docs", "report-cycle.png"), shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// The search's own artifact, as `interleave report` renders it: the
	// search named the anomaly and found the critical pair when it saved
	// the failure, and the page draws the cycle and marks the pair without
	// explain (no fix yet: explain's level runs give it).
	rec := res.Artifact.Explanation
	if rec == nil || rec.Anomaly != x.Anomaly || len(rec.Cycle) != len(x.Cycle) || rec.CriticalPair == nil || !rec.CriticalPair.Found {
		t.Fatalf("the search's artifact keeps %+v; want the anomaly explain names, %+v", rec, x.Anomaly)
	}
	plain := writePage(t, t.TempDir(), "plain.html", res.Artifact, report.Options{ReplayCommand: "interleave replay . failure.json"})
	plainURL := tb.load(plain)
	var own struct {
		Shown    bool
		Name     string
		Edges    int
		Critical int
		Fix      int
		More     string
	}
	tb.eval(`({
		shown: !document.getElementById('explain-section').hidden,
		name: document.querySelector('.explain-name strong').textContent,
		edges: document.querySelectorAll('.cycle-edge').length,
		critical: document.querySelectorAll('.unit-box.critical').length,
		fix: document.querySelectorAll('.explain-fix').length,
		more: (document.querySelector('.explain-more') || {}).textContent || '',
	})`, &own)
	if !own.Shown || own.Name != "lost update" || own.Edges != 2 || own.Critical != 2 || own.Fix != 0 || own.More != "" {
		t.Fatalf("the report of the search's artifact shows %+v; want the lost update and its two dependencies drawn and the critical pair's two commands marked (the pointer to explain is for artifacts named without a pair)", own)
	}
	tb.clean("file://"+file, plainURL)
	tb.screenshot("report-cycle-run.png")
}

package browsertest_test

import (
	"regexp"
	"strings"

	"github.com/pginterleave/interleave/artifact"
)

// checkCounts: the header says what the CLI says about the same artifact,
// and never the old "N decisions" or "stopped: stopped".
func checkCounts(tb *tab, a *artifact.Artifact) {
	tb.t.Helper()
	var facts []string
	tb.eval(`[...document.querySelectorAll('#facts li')].map((li) => li.textContent)`, &facts)
	want := cliCounts(a)
	found := false
	for _, f := range facts {
		found = found || f == want
		if strings.Contains(f, "decisions,") || strings.Contains(f, "stopped: stopped") {
			tb.t.Errorf("the header still says %q", f)
		}
	}
	if !found {
		tb.t.Errorf("the header's facts %q lack the CLI's line %q", facts, want)
	}
}

// checkFailingInView: at 1280x800 the failing step is on screen, inside
// the timeline's visible part (not under the lane labels, not behind a
// horizontal scroll), highlighted, and in the inspector. With noScroll the
// page must not have scrolled to show it (a short recording fits); a page
// with more lanes may scroll it into view.
func checkFailingInView(tb *tab, wantID string, noScroll bool) {
	tb.t.Helper()
	var f struct {
		ID, Badge, Head, Pressed, Inspector string
		InViewport, InTimeline, OnTop       bool
		Width, Height, ScrollY              float64
		Left, Right, Top, Bottom            float64
	}
	tb.eval(`(() => {
	  const b = document.querySelector('#timeline .unit-box.failing');
	  if (!b) return {};
	  const r = b.getBoundingClientRect(), tl = document.getElementById('timeline').getBoundingClientRect();
	  const label = document.querySelector('#timeline .lane-label').getBoundingClientRect();
	  const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
	  const mark = b.querySelector('.badge-failing'), head = document.querySelector('#timeline .step-head.is-failing');
	  return {id: b.dataset.actor + ' ' + b.dataset.conn + '.' + b.dataset.unit, badge: mark ? mark.textContent : '', head: head ? head.textContent : '',
	    pressed: b.getAttribute('aria-pressed'), inspector: document.getElementById('inspector-body').textContent,
	    inViewport: r.left >= 0 && r.right <= innerWidth && r.top >= 0 && r.bottom <= innerHeight,
	    inTimeline: r.left >= label.right - 1 && r.right <= tl.right + 1, onTop: !!hit && b.contains(hit),
	    width: innerWidth, height: innerHeight, scrollY: scrollY, left: r.left, right: r.right, top: r.top, bottom: r.bottom};
	})()`, &f)
	if f.Width != 1280 || f.Height != 800 {
		tb.t.Fatalf("the viewport is %vx%v; want 1280x800", f.Width, f.Height)
	}
	if f.ID != wantID || f.Badge != "failing step" || f.Head == "" || f.Pressed != "true" || !strings.Contains(f.Inspector, "The failing step") {
		tb.t.Errorf("the failing step is %+v; want %s marked, its step heading highlighted, selected and in the inspector", f, wantID)
	}
	if !f.InViewport || !f.InTimeline || !f.OnTop || (noScroll && f.ScrollY != 0) {
		tb.t.Errorf("at 1280x800 the failing step is not in view (without scrolling: %v): %+v", noScroll, f)
	}
	if f.ScrollY != 0 {
		tb.t.Logf("the page scrolled %v px to show the failing step %s", f.ScrollY, wantID)
	}
}

// checkLegend: every mark the timeline uses is explained in the legend, and
// no unexplained protocol letters (PDS, BES) are left on the units.
func checkLegend(tb *tab) {
	tb.t.Helper()
	var l struct {
		Used, Legend, Tags []string
		Visible            bool
	}
	tb.eval(`(() => {
	  const used = new Set();
	  document.querySelectorAll('#timeline .badge').forEach((b) => b.classList.forEach((c) => { if (c.startsWith('badge-') && c !== 'badge-muted') used.add(c); }));
	  for (const c of ['unit-id', 'unit-tag', 'wait-bar']) if (document.querySelector('#timeline .' + c)) used.add(c);
	  const items = [...document.querySelectorAll('#legend [data-legend]')];
	  return {used: [...used], legend: items.filter((i) => i.querySelector('dd').textContent.length > 20).map((i) => i.dataset.legend),
	    tags: [...document.querySelectorAll('#timeline .unit-tag')].map((t) => t.textContent),
	    visible: items.length > 0 && items.every((i) => i.getBoundingClientRect().height > 0)};
	})()`, &l)
	explained := map[string]bool{}
	for _, c := range l.Legend {
		explained[c] = true
	}
	for _, c := range l.Used {
		if !explained[c] {
			tb.t.Errorf("the timeline uses %s, which the legend does not explain (legend: %v)", c, l.Legend)
		}
	}
	if !l.Visible || len(l.Used) < 3 {
		tb.t.Errorf("legend visible %v; marks used %v", l.Visible, l.Used)
	}
	letters := regexp.MustCompile(`^[QPBDESCHFdcf]+$`)
	for _, tag := range l.Tags {
		if letters.MatchString(tag) {
			tb.t.Errorf("a unit is labelled %q: protocol letters the reader cannot decode", tag)
		}
	}
}

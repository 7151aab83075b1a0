package browsertest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/report"
)

// longArtifact is a synthetic recording of n release units, pure data made
// for the test: four actors on one connection each, one unit per step in an
// irregular order, a statement preparation every 10th step, a lock wait
// every 50th, a choice every 97th, and one serialization failure at step
// failStep that makes the outcome an actor error.
func longArtifact(n, failStep int) *artifact.Artifact {
	actors := []string{"alice", "bob", "carol", "dave"}
	a := &artifact.Artifact{
		SchemaVersion: artifact.SchemaVersion,
		Tool:          artifact.Tool{Name: "interleave", Version: "test"},
		CreatedAt:     time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Scenario:      artifact.Scenario{Name: "long", Actors: actors, Kind: "go"},
		Mode:          "explore",
		Outcome:       artifact.Outcome{Kind: "actor-error", Message: "an actor returned an error: could not serialize access due to concurrent update", ExitCode: 1},
		Limits:        artifact.Limits{AttemptTimeoutMS: 30000, Connections: "single-producer", ProtocolProfile: "sync-cycle"},
	}
	next := map[string]int{}
	prev := ""
	for i := range n {
		actor := actors[(i*7/3+i/11)%len(actors)]
		ref := artifact.UnitRef{Actor: actor, Unit: next[actor], Hash: fmt.Sprintf("%016x", i)}
		next[actor]++
		at := int64(i) * 100
		u := artifact.Unit{
			Actor: actor, Unit: ref.Unit, Protocol: "extended", Messages: "BES", Hash: ref.Hash,
			SQL:    []string{fmt.Sprintf("UPDATE account SET balance = balance + $1 WHERE id = %d", i%97)},
			Params: [][]artifact.Param{{{Text: strconv.Itoa(i), Size: len(strconv.Itoa(i))}}}, BackendPID: uint32(1000 + ref.Unit%4),
			PendingStep: max(i-1, 0), ReleaseStep: i, PendingUS: at, ReleasedUS: at + 10, CompletedUS: at + 60, Completed: true,
			Tags: []string{"UPDATE 1"}, TxStatus: "T",
		}
		switch {
		case i%10 == 0:
			u.Prepare, u.Messages, u.Tags, u.Params = true, "PDS", nil, nil
		case i%50 == 25 && prev != "" && prev != actor:
			u.LockWaits = []artifact.LockWait{{Step: i, AtUS: at + 20, BlockingActors: []string{prev}, BlockingPIDs: []uint32{1000}}}
			u.CompletedUS = at + 350
		}
		if i == failStep {
			u.SQLState, u.Error, u.Tags, u.TxStatus = "40001", "could not serialize access due to concurrent update", nil, "E"
		}
		d := artifact.Decision{Step: i, Release: []artifact.UnitRef{ref}, Candidates: []artifact.UnitRef{ref}}
		if i%97 == 96 {
			d.Choice = true
			a.Schedule.Choices = append(a.Schedule.Choices, artifact.Choice{Step: i, Release: d.Release})
		}
		a.Units = append(a.Units, u)
		a.Schedule.Decisions = append(a.Schedule.Decisions, d)
		prev = actor
	}
	return a
}

// pageMeasureJS records, from a key press, when the page changed the
// inspector or the timeline (handled) and when the frame after that was
// drawn (painted), in the page's own clock.
const pageMeasureJS = `(() => {
  const m = window.__m = {};
  document.addEventListener('keydown', () => { m.key = performance.now(); m.handled = 0; m.painted = 0; }, true);
  const note = () => {
    if (!m.key || m.handled) return;
    m.handled = performance.now();
    requestAnimationFrame(() => requestAnimationFrame(() => { m.painted = performance.now(); }));
  };
  new MutationObserver(note).observe(document.getElementById('inspector-body'), {childList: true});
  new MutationObserver(note).observe(document.getElementById('timeline'), {childList: true});
})()`

type timing struct{ Handled, Painted float64 }

func (tm timing) String() string {
	return fmt.Sprintf("%.1f ms (drawn after %.1f ms)", tm.Handled, tm.Painted)
}

// TestLongTimelineInChromium renders a 10,000-unit recording and measures,
// in the page, how long it takes to open, to select a unit and to turn a
// page with the keyboard, to filter and to open the same file again. It
// logs the numbers and asserts only structure: never more than a page of
// units in the DOM, the failing step shown first and in view.
func TestLongTimelineInChromium(t *testing.T) {
	tb := newTab(t)
	const n, failStep, pageUnits = 10000, 7345, 60
	a := longArtifact(n, failStep)
	if err := artifact.Validate(a); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := writePage(t, dir, "long.html", a, report.Options{})
	info, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	pageURL := tb.load(file)
	tb.poll("the first frame", `performance.getEntriesByName('interleave:first-frame').length > 0`)
	var open struct {
		DOMInteractive, ScriptStart, Validated, Ready, FirstFrame float64
		Boxes                                                     int
		Status, Count                                             string
		PagerHidden, TableBuilt                                   bool
	}
	tb.eval(`(() => {
	  const mark = (x) => performance.getEntriesByName(x)[0].startTime;
	  return {domInteractive: performance.getEntriesByType('navigation')[0].domInteractive, scriptStart: mark('interleave:script-start'), validated: mark('interleave:validated'),
	    ready: mark('interleave:ready'), firstFrame: mark('interleave:first-frame'), boxes: document.querySelectorAll('#timeline .unit-box').length,
	    status: document.getElementById('page-status').textContent, count: document.getElementById('filter-count').textContent,
	    pagerHidden: document.getElementById('pager').hidden, tableBuilt: !!document.querySelector('#all-units table')};
	})()`, &open)
	if open.Boxes == 0 || open.Boxes > pageUnits || open.PagerHidden || open.TableBuilt || open.Count != "10,000 units" || !strings.Contains(open.Status, "of 10,000") {
		t.Errorf("the 10,000-unit page opens with %+v; want at most %d unit boxes, the pager, no print table", open, pageUnits)
	}
	fail := a.Units[failStep]
	checkFailingInView(tb, unitID(&fail), false)
	checkCounts(tb, a)
	checkLegend(tb)
	devShot(tb, "long.png")

	tb.eval(pageMeasureJS, nil)
	press := func(what, key string) timing {
		t.Helper()
		tb.run(what, chromedp.KeyEvent(key))
		tb.poll(what, `window.__m.painted > 0`)
		var m struct{ Key, Handled, Painted float64 }
		tb.eval(`window.__m`, &m)
		var boxes int
		tb.eval(`document.querySelectorAll('#timeline .unit-box').length`, &boxes)
		if boxes == 0 || boxes > pageUnits {
			t.Errorf("after %s the DOM holds %d unit boxes; want 1 to %d", what, boxes, pageUnits)
		}
		return timing{m.Handled - m.Key, m.Painted - m.Key}
	}
	// Select units with the keyboard: from the failing step, move right
	// and press Enter.
	tb.run("focus the failing step", chromedp.Focus(chromedp.CSS("#timeline .unit-box.failing")))
	var selects []timing
	for range 5 {
		tb.run("press ArrowRight", chromedp.KeyEvent(kb.ArrowRight))
		selects = append(selects, press("select with Enter", kb.Enter))
	}
	var sel pageState
	tb.eval(stateJS, &sel)
	if want := unitID(&a.Units[failStep+5]); len(sel.Selected) != 1 || sel.Selected[0] != want || sel.Active != want {
		t.Errorf("after five moves right and Enter: selected %v, focus on %s; want %s", sel.Selected, sel.Active, want)
	}
	// Turn pages with the keyboard.
	var turns []timing
	var status []string
	for range 3 {
		turns = append(turns, press("turn the page with PageDown", kb.PageDown))
		var s string
		tb.eval(`document.getElementById('page-status').textContent`, &s)
		status = append(status, s)
	}
	if status[0] == status[1] || status[1] == status[2] {
		t.Errorf("PageDown did not turn the page: %q", status)
	}
	press("jump to the end", kb.End)
	tb.eval(stateJS, &sel)
	if want := unitID(&a.Units[n-1]); sel.Active != want {
		t.Errorf("End moved the focus to %s; want the last unit %s", sel.Active, want)
	}
	press("jump to the start", kb.Home)
	tb.eval(stateJS, &sel)
	if want := unitID(&a.Units[0]); sel.Active != want {
		t.Errorf("Home moved the focus to %s; want the first unit %s", sel.Active, want)
	}

	// Go to a step by number, then back to the failing step with its button
	// while a filter hides it.
	tb.run("go to step 5000", chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('page-step'); s.value = '5000'; s.dispatchEvent(new Event('change')); })()`))
	tb.eval(stateJS, &sel)
	if want := unitID(&a.Units[5000]); sel.Active != want {
		t.Errorf("going to step 5000 focused %s; want %s", sel.Active, want)
	}
	tb.run("hide bob, then show the failing step", chromedp.Click(chromedp.CSS(`#actor-filter input[data-actor="bob"]`)), chromedp.Click(chromedp.CSS("#page-failing")))
	tb.eval(stateJS, &sel)
	if want := unitID(&fail); sel.Active != want || len(sel.Selected) != 1 || sel.Selected[0] != want {
		t.Errorf("\"Show the failing step\" with bob hidden: focus on %s, selected %v; want %s", sel.Active, sel.Selected, want)
	}

	// Filter the 10,000 units by SQL text.
	matches := 0
	for _, u := range a.Units {
		if strings.HasSuffix(u.SQL[0], "WHERE id = 42") {
			matches++
		}
	}
	var search struct {
		Handled, Painted float64
		Count            string
		Boxes            int
	}
	tb.eval(`(() => {
	  const s = document.getElementById('search');
	  s.value = 'where id = 42';
	  const t0 = performance.now();
	  s.dispatchEvent(new Event('input'));
	  const handled = performance.now() - t0;
	  return new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done({handled, painted: performance.now() - t0,
	    count: document.getElementById('filter-count').textContent, boxes: document.querySelectorAll('#timeline .unit-box').length}))));
	})()`, &search)
	if want := fmt.Sprintf("%d of 10,000 units shown", matches); search.Count != want || search.Boxes == 0 || search.Boxes > pageUnits {
		t.Errorf("the search shows %q with %d boxes; want %q and at most %d boxes", search.Count, search.Boxes, want, pageUnits)
	}
	tb.run("clear the search", chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('search'); s.value = ''; s.dispatchEvent(new Event('input')); })()`))

	// Open the same recording as a file: read, validate, show.
	jsonPath := filepath.Join(dir, "long.json")
	if err := artifact.Write(jsonPath, a, true); err != nil {
		t.Fatal(err)
	}
	tb.eval(`(() => {
	  const m = window.__open = {};
	  document.getElementById('open-file').addEventListener('change', () => { m.start = performance.now(); }, {capture: true, once: true});
	  new MutationObserver(() => {
	    if (m.shown || !document.getElementById('open-status').textContent.startsWith('Showing')) return;
	    m.shown = performance.now();
	    requestAnimationFrame(() => requestAnimationFrame(() => { m.painted = performance.now(); }));
	  }).observe(document.getElementById('open-status'), {childList: true, subtree: true});
	})()`, nil)
	tb.run("open the JSON with the file picker", chromedp.SetUploadFiles(chromedp.CSS("#open-file"), []string{jsonPath}))
	tb.poll("the opened file is shown", `window.__open.painted > 0`)
	var opened struct{ Start, Shown, Painted float64 }
	tb.eval(`window.__open`, &opened)
	checkFailingInView(tb, unitID(&fail), false)
	tb.clean(pageURL)

	t.Logf("10,000 units, %.1f MB of HTML, in the page's clock (performance.now):", float64(info.Size())/1e6)
	t.Logf("  first render: the script starts %.0f ms after navigation (parsing the HTML), reads and validates the JSON in %.0f ms, builds the page in %.0f ms; first frame at %.0f ms; %d unit boxes in the DOM",
		open.ScriptStart, open.Validated-open.ScriptStart, open.Ready-open.Validated, open.FirstFrame, open.Boxes)
	t.Logf("  select a unit with Enter: %v", selects)
	t.Logf("  turn a page with PageDown: %v", turns)
	t.Logf("  filter by SQL text (%d matches): %.1f ms (drawn after %.1f ms)", matches, search.Handled, search.Painted)
	t.Logf("  open the 10,000-unit JSON with the file picker: read, validate and show %.0f ms (drawn after %.0f ms)", opened.Shown-opened.Start, opened.Painted-opened.Start)
}

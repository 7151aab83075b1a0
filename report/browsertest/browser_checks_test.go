package browsertest_test

import (
	"context"
	"os"
	"strings"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/pginterleave/interleave/artifact"
)

// pageState is what the DOM shows of the timeline, the inspector and focus.
type pageState struct {
	Active         string   `json:"active"`
	Selected       []string `json:"selected"`
	InspectorTitle string   `json:"inspectorTitle"`
	InspectorSQL   []string `json:"inspectorSql"`
	InspectorText  string   `json:"inspectorText"`
}

const stateJS = `(() => {
  const id = (b) => b.dataset.actor + ' ' + b.dataset.conn + '.' + b.dataset.unit;
  const a = document.activeElement;
  const t = document.querySelector('#inspector-body .insp-title');
  return {
    active: a && a.classList.contains('unit-box') ? id(a) : (a ? a.tagName + '#' + a.id : ''),
    selected: [...document.querySelectorAll('.unit-box[aria-pressed="true"]')].map(id),
    inspectorTitle: t ? t.textContent : '',
    inspectorSql: [...document.querySelectorAll('#inspector-body pre.sql')].map((p) => p.textContent),
    inspectorText: document.getElementById('inspector-body').textContent,
  };
})()`

// checkStatic asserts what the loaded page shows before any interaction.
func checkStatic(tb *tab, a *artifact.Artifact, waited *artifact.Unit) {
	t := tb.t
	t.Helper()
	var outcome struct {
		Kind, Verdict, Message, Border string
		Visible                        bool
	}
	tb.eval(`(() => {
	  const h = document.getElementById('outcome'), m = document.getElementById('outcome-message');
	  const r = m.getBoundingClientRect();
	  return {kind: h.dataset.outcome, verdict: document.getElementById('verdict').innerText, message: m.innerText,
	    border: getComputedStyle(h).borderTopColor, visible: r.width > 0 && r.height > 0 && r.top < innerHeight && getComputedStyle(m).visibility === 'visible'};
	})()`, &outcome)
	if outcome.Kind != "violation" || outcome.Verdict != "Invariant violated" || outcome.Message != a.Outcome.Message || !outcome.Visible {
		t.Errorf("outcome shown as %+v; want the violation %q visible at the top", outcome, a.Outcome.Message)
	}
	if outcome.Border != "rgb(180, 35, 24)" {
		t.Errorf("the outcome's colour is %s, not red: is the stylesheet blocked?", outcome.Border)
	}

	var boxes []struct {
		ID, SQL, Text, WaitedOn string
		Visible, Waited         bool
	}
	tb.eval(`[...document.querySelectorAll('#timeline .unit-box')].map((b) => {
	  const r = b.getBoundingClientRect();
	  return {id: b.dataset.actor + ' ' + b.dataset.conn + '.' + b.dataset.unit, sql: b.querySelector('.unit-sql').textContent,
	    text: b.textContent, waitedOn: b.dataset.waitedOn || '', waited: b.classList.contains('waited'), visible: r.width > 0 && r.height > 0};
	})`, &boxes)
	if len(boxes) != len(a.Units) {
		t.Errorf("the timeline has %d unit boxes; the artifact has %d units", len(boxes), len(a.Units))
	}
	byID := map[string]int{}
	for i, b := range boxes {
		byID[b.ID] = i
	}
	for i := range a.Units {
		u := &a.Units[i]
		j, ok := byID[unitID(u)]
		if !ok {
			t.Errorf("no box for unit %s", unitID(u))
			continue
		}
		b := boxes[j]
		for _, q := range u.SQL {
			if !strings.Contains(b.SQL, q) || !b.Visible {
				t.Errorf("unit %s: the box shows %q (visible %v); want its SQL %q", unitID(u), b.SQL, b.Visible, q)
			}
		}
		if b.Waited != (len(u.LockWaits) > 0) {
			t.Errorf("unit %s: marked waited %v, but it has %d lock waits", unitID(u), b.Waited, len(u.LockWaits))
		}
	}
	if b := boxes[byID[unitID(waited)]]; !b.Waited || b.WaitedOn != "alice" || !strings.Contains(b.Text, "waited on alice") {
		t.Errorf("bob's waiting UPDATE is shown as %+v; want it marked as waiting on alice", b)
	}
	var bar string
	tb.eval(`[...document.querySelectorAll('#timeline .wait-bar')].map((b) => b.textContent).join('|')`, &bar)
	if !strings.Contains(bar, "waiting for alice") {
		t.Errorf("wait bars %q; want one waiting for alice", bar)
	}

	var hostileShown struct {
		AsText  bool `json:"asText"`
		Scripts []struct{ Type, ID, Start string }
		CSP     string `json:"csp"`
	}
	tb.eval(`({
	  asText: [...document.querySelectorAll('body *')].some((e) => e.children.length === 0 && e.textContent === `+jsString(hostile)+`),
	  scripts: [...document.querySelectorAll('script')].map((s) => ({type: s.type, id: s.id, start: s.textContent.slice(0, 14)})),
	  csp: document.querySelector('meta[http-equiv="Content-Security-Policy"]').content,
	})`, &hostileShown)
	if !hostileShown.AsText {
		t.Errorf("no element has the text %s", hostile)
	}
	if s := hostileShown.Scripts; len(s) != 3 || s[0].Type != "application/json" || s[0].ID != "artifact-data" ||
		s[1].Type != "application/json" || s[1].ID != "report-config" || s[2].Type != "" || s[2].Start != "\n(function () " {
		t.Errorf("script elements %+v; want only the two JSON blocks and the page's own script", s)
	}
	if !strings.HasPrefix(hostileShown.CSP, "default-src 'none'; script-src 'sha256-") {
		t.Errorf("the Content-Security-Policy in the DOM is %q", hostileShown.CSP)
	}

	var sections struct{ Env, Cancels, Replay, Results string }
	tb.eval(`({env: document.getElementById('environment').innerText, cancels: document.getElementById('cancels').innerText,
	  replay: document.getElementById('replay-command').innerText, results: document.getElementById('results').innerText})`, &sections)
	for _, want := range []string{a.Environment.PostgresVersion, a.Environment.GoVersion, a.Environment.InterleaveVersion, a.Fingerprint.Database.Hash} {
		if !strings.Contains(sections.Env, want) {
			t.Errorf("the environment section lacks %q:\n%s", want, sections.Env)
		}
	}
	if sections.Replay != "interleave replay ./examples/reservation failure.json" || !strings.Contains(sections.Cancels, "No cancel requests") {
		t.Errorf("replay command %q, cancels %q", sections.Replay, sections.Cancels)
	}
	if !strings.Contains(sections.Results, `alice returned "reserved"`) || !strings.Contains(sections.Results, `bob returned "updated"`) {
		t.Errorf("the actors' results read %q", sections.Results)
	}
}

// checkKeyboard reaches the timeline with Tab, moves with the arrow keys and
// selects with Enter.
func checkKeyboard(tb *tab, waited, hostileUnit *artifact.Unit) {
	t := tb.t
	t.Helper()
	var s pageState
	tb.eval(stateJS, &s)
	if len(s.Selected) != 1 || s.Selected[0] != unitID(waited) || !strings.Contains(s.InspectorText, "Waited on alice's lock") {
		t.Fatalf("initially selected %v, inspector %q; want bob's waiting UPDATE", s.Selected, s.InspectorText)
	}
	tb.run("focus the search box", chromedp.Focus(chromedp.CSS("#search")))
	for i := 0; i < 10 && !strings.Contains(s.Active, "."); i++ {
		tb.run("press Tab", chromedp.KeyEvent(kb.Tab))
		tb.eval(stateJS, &s)
	}
	if !strings.Contains(s.Active, ".") {
		t.Fatalf("Tab from the search box never reached a timeline unit (focus on %s)", s.Active)
	}
	moves := 0
	for i := 0; i < 40 && s.Active != unitID(hostileUnit); i++ {
		before := s.Active
		tb.run("press ArrowRight", chromedp.KeyEvent(kb.ArrowRight))
		tb.eval(stateJS, &s)
		if s.Active == before {
			t.Fatalf("ArrowRight did not move the focus from %s", before)
		}
		moves++
	}
	if s.Active != unitID(hostileUnit) || moves == 0 {
		t.Fatalf("the arrow keys never reached %s (focus on %s after %d moves)", unitID(hostileUnit), s.Active, moves)
	}
	if len(s.Selected) != 1 || s.Selected[0] != unitID(waited) {
		t.Fatalf("moving the focus changed the selection to %v", s.Selected)
	}
	tb.run("press Enter", chromedp.KeyEvent(kb.Enter))
	tb.eval(stateJS, &s)
	if len(s.Selected) != 1 || s.Selected[0] != unitID(hostileUnit) || !strings.HasPrefix(s.InspectorTitle, "alice") ||
		len(s.InspectorSQL) != 1 || s.InspectorSQL[0] != hostile || strings.Contains(s.InspectorText, "Waited on") {
		t.Fatalf("after Enter: selected %v, inspector %q %q; want alice's hostile statement", s.Selected, s.InspectorTitle, s.InspectorSQL)
	}
	tb.run("press ArrowDown", chromedp.KeyEvent(kb.ArrowDown))
	tb.eval(stateJS, &s)
	if !strings.HasPrefix(s.Active, "bob ") {
		t.Errorf("ArrowDown from alice's lane moved the focus to %s; want bob's lane", s.Active)
	}
	tb.run("press ArrowUp", chromedp.KeyEvent(kb.ArrowUp))
	tb.eval(stateJS, &s)
	if !strings.HasPrefix(s.Active, "alice ") {
		t.Errorf("ArrowUp from bob's lane moved the focus to %s; want alice's lane", s.Active)
	}
}

type filterState struct {
	Visible []string `json:"visible"`
	Count   string   `json:"count"`
	Lanes   []string `json:"lanes"`
}

const filterJS = `({
  visible: [...document.querySelectorAll('#timeline .unit-box')].filter((b) => b.getBoundingClientRect().width > 0).map((b) => b.dataset.actor + ' ' + b.dataset.conn + '.' + b.dataset.unit),
  count: document.getElementById('filter-count').textContent,
  lanes: [...document.querySelectorAll('#timeline .lane-label')].filter((l) => l.getBoundingClientRect().height > 0).map((l) => l.textContent),
})`

// checkFilters narrows the timeline by SQL text and by actor.
func checkFilters(tb *tab, a *artifact.Artifact) {
	t := tb.t
	t.Helper()
	tb.run("search", chromedp.Focus(chromedp.CSS("#search")), chromedp.KeyEvent("FOR update"))
	var f filterState
	tb.eval(filterJS, &f)
	var want []string
	for i := range a.Units {
		if strings.Contains(strings.ToLower(strings.Join(a.Units[i].SQL, ";\n")), "for update") {
			want = append(want, unitID(&a.Units[i]))
		}
	}
	if len(want) == 0 || strings.Join(f.Visible, ",") != strings.Join(want, ",") || !strings.Contains(f.Count, " of ") {
		t.Errorf("searching \"FOR update\" shows %v (%q); want %v", f.Visible, f.Count, want)
	}
	tb.run("clear the search", chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('search'); s.value = ''; s.dispatchEvent(new Event('input')); })()`))
	tb.run("hide bob", chromedp.Click(chromedp.CSS(`#actor-filter input[data-actor="bob"]`)))
	tb.eval(filterJS, &f)
	for _, v := range f.Visible {
		if !strings.HasPrefix(v, "alice ") {
			t.Errorf("with bob unchecked, %s is shown", v)
		}
	}
	if len(f.Visible) == 0 || strings.Join(f.Lanes, ",") != "alice" {
		t.Errorf("with bob unchecked: units %v, lanes %v", f.Visible, f.Lanes)
	}
	tb.run("show bob", chromedp.Click(chromedp.CSS(`#actor-filter input[data-actor="bob"]`)))
	tb.eval(filterJS, &f)
	if len(f.Visible) != len(a.Units) {
		t.Errorf("after checking bob again %d of %d units are shown", len(f.Visible), len(a.Units))
	}
}

// checkLayouts checks the narrow layout (stacked, the timeline scrolls
// sideways, the page does not) and the print layout (no interactive
// chrome, every unit visible whatever the filters, the table of all units).
func checkLayouts(tb *tab) {
	t := tb.t
	t.Helper()
	var l struct {
		Stacked, SideBySide, TimelineScrolls, PageScrolls bool
		Toolbar, Copy, Table, Actions                     string
		Rows, Boxes, Shown, Units                         int
	}
	layoutJS := `(() => {
	  const i = document.getElementById('inspector').getBoundingClientRect(), a = document.querySelector('aside').getBoundingClientRect();
	  const tl = document.getElementById('timeline');
	  const boxes = [...document.querySelectorAll('#timeline .unit-box')];
	  return {stacked: Math.abs(i.left - a.left) < 2 && a.top >= i.bottom, sideBySide: a.left >= i.right,
	    timelineScrolls: tl.scrollWidth > tl.clientWidth, pageScrolls: document.documentElement.scrollWidth > innerWidth,
	    toolbar: getComputedStyle(document.getElementById('toolbar')).display, copy: getComputedStyle(document.getElementById('copy')).display,
	    actions: getComputedStyle(document.querySelector('.file-actions')).display,
	    table: getComputedStyle(document.getElementById('all-units')).display, rows: document.querySelectorAll('#all-units tbody tr').length,
	    boxes: boxes.length, shown: boxes.filter((b) => b.getBoundingClientRect().width > 0).length,
	    units: JSON.parse(document.getElementById('artifact-data').textContent).units.length};
	})()`
	tb.eval(layoutJS, &l)
	if !l.SideBySide || l.Table != "none" || l.Toolbar == "none" || l.Rows != 0 {
		t.Errorf("wide layout: %+v; want the inspector and the side column side by side, the toolbar shown, no print table built yet", l)
	}
	tb.run("narrow viewport", chromedp.EmulateViewport(600, 900))
	tb.eval(layoutJS, &l)
	if !l.Stacked || !l.TimelineScrolls || l.PageScrolls {
		t.Errorf("600px layout: %+v; want stacked sections and a timeline that scrolls sideways inside a page that does not", l)
	}
	devShot(tb, "narrow.png")
	tb.run("back to 1280x800", chromedp.EmulateViewport(1280, 800))
	tb.run("filter everything out, then print", chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('search'); s.value = 'no such SQL'; s.dispatchEvent(new Event('input')); })()`),
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"})
			return err
		}))
	tb.poll("the print view", `document.querySelectorAll('#all-units tbody tr').length > 0 && document.querySelectorAll('#timeline .unit-box').length > 0`)
	tb.eval(layoutJS, &l)
	devShot(tb, "print.png")
	if l.Toolbar != "none" || l.Copy != "none" || l.Actions != "none" || l.Table == "none" || l.Rows != l.Units || l.Boxes != l.Units || l.Shown != l.Units {
		t.Errorf("print layout: %+v; want no toolbar, file or copy buttons, every unit shown, the table of all units", l)
	}
	tb.run("screen media", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{})
		return err
	}), chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('search'); s.value = ''; s.dispatchEvent(new Event('input')); })()`))
}

// devShot saves a screenshot for a person who works on the layout, when
// $INTERLEAVE_SCREENSHOT_DIR is set.
func devShot(tb *tab, name string) {
	if os.Getenv("INTERLEAVE_SCREENSHOT_DIR") != "" {
		tb.screenshot(name)
	}
}

// checkSample checks the marks the real run does not produce, on the
// hand-built sample artifact.
func checkSample(tb *tab) {
	t := tb.t
	t.Helper()
	var s struct {
		Errors, Pairs, Choices, Unreleased []string
		Cancels, Inspector, Verdict        string
	}
	tb.eval(`(() => {
	  const id = (b) => b.dataset.actor + ' ' + b.dataset.conn + '.' + b.dataset.unit;
	  const boxes = [...document.querySelectorAll('#timeline .unit-box')];
	  return {errors: boxes.filter((b) => b.classList.contains('error')).map((b) => id(b) + ': ' + b.querySelector('.badge-error').textContent),
	    pairs: boxes.filter((b) => b.classList.contains('pair')).map(id),
	    choices: [...document.querySelectorAll('.step-head.is-choice .step-no')].map((h) => h.textContent),
	    unreleased: boxes.filter((b) => b.textContent.includes('never released')).map(id),
	    cancels: document.getElementById('cancels').innerText, inspector: document.getElementById('inspector-body').innerText,
	    verdict: document.getElementById('verdict').innerText};
	})()`, &s)
	if strings.Join(s.Errors, ",") != "alice 0.2: SQLSTATE 22012" {
		t.Errorf("error marks %v; want alice 0.2 with SQLSTATE 22012", s.Errors)
	}
	if strings.Join(s.Pairs, ",") != "alice 0.2,bob 0.0" || strings.Join(s.Choices, ",") != "step 1" || strings.Join(s.Unreleased, ",") != "bob 0.2" {
		t.Errorf("pairs %v, choices %v, never released %v; want [alice 0.2 bob 0.0], [step 1], [bob 0.2]", s.Pairs, s.Choices, s.Unreleased)
	}
	for _, want := range []string{"bob", "43", "yes", "900"} {
		if !strings.Contains(s.Cancels, want) {
			t.Errorf("the cancel requests section lacks %q:\n%s", want, s.Cancels)
		}
	}
	// The violation says v changed: the failing step is bob's UPDATE, the
	// only unit that changed a row.
	if !strings.Contains(s.Inspector, "The failing step") || !strings.Contains(s.Inspector, "UPDATE t SET v = v + 1") || s.Verdict != "Invariant violated" {
		t.Errorf("the sample opens on %q with inspector\n%s\nwant bob's UPDATE as the failing step", s.Verdict, s.Inspector)
	}
	tb.run("select alice's failing division", chromedp.Click(chromedp.CSS(`.unit-box[data-actor="alice"][data-unit="2"]`)))
	tb.eval(`document.getElementById('inspector-body').innerText`, &s.Inspector)
	if !strings.Contains(s.Inspector, "SQLSTATE 22012: division by zero") {
		t.Errorf("alice's division by zero is inspected as\n%s", s.Inspector)
	}
	tb.run("select bob's hostile unit", chromedp.Click(chromedp.CSS(`.unit-box[data-actor="bob"][data-unit="0"]`)))
	var params []string
	tb.eval(`[...document.querySelectorAll('#inspector-body .params li')].map((li) => li.textContent)`, &params)
	if strings.Join(params, "|") != "$1 = <!-- x  $2 = </script>" {
		t.Errorf("bob's parameters are shown as %q", params)
	}
}

package browsertest_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/internal/testkit/golden"
	"github.com/pginterleave/interleave/report"
)

// TestOpenAnotherArtifactInChromium opens artifacts in a rendered report
// with the file picker and by drag and drop, refuses invalid files the way
// artifact.Decode does (with a message in the page, running nothing from
// them), downloads what it shows and goes back to its own artifact.
func TestOpenAnotherArtifactInChromium(t *testing.T) {
	tb := newTab(t)
	dir := t.TempDir()
	pageURL := tb.load(writePage(t, dir, "sample.html", sample(), report.Options{}))
	counterJSON, err := os.ReadFile(filepath.Join("..", "testdata", "counter-failure.json"))
	if err != nil {
		t.Fatal(err)
	}
	counter, err := artifact.Decode(counterJSON)
	if err != nil {
		t.Fatal(err)
	}

	// The file picker: the counter's lost update, as the CLI recorded it.
	counterPath := filepath.Join(dir, "counter-failure.json")
	if err := os.WriteFile(counterPath, counterJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	tb.run("pick the counter's artifact", chromedp.SetUploadFiles(chromedp.CSS("#open-file"), []string{counterPath}))
	tb.poll("the picked artifact is shown", `document.getElementById('scenario-name').textContent === 'counter'`)
	var shown struct{ Status, Title, Replay, Message string }
	tb.eval(`({status: document.getElementById('open-status').textContent, title: document.title,
	  replay: document.getElementById('replay-command').textContent, message: document.getElementById('outcome-message').textContent})`, &shown)
	if !strings.Contains(shown.Status, "Showing \u201ccounter-failure.json\u201d, opened from your computer") || shown.Title != "Invariant violated: counter (Interleave report)" ||
		shown.Replay != "interleave replay ./examples/counter counter-failure.json" || shown.Message != counter.Outcome.Message {
		t.Errorf("after picking the counter's artifact the page shows %+v", shown)
	}
	checkCounts(tb, counter)
	var facts []string
	tb.eval(`[...document.querySelectorAll('#facts li')].map((li) => li.textContent)`, &facts)
	golden.Check(t, "../testdata/counter-facts.golden", []byte(strings.Join(facts, "\n")+"\n"))
	// The case: the step that loses the update (bob's UPDATE, step
	// 7 of 8) is in view at 1280 px, without scrolling.
	checkFailingInView(tb, "bob 0.3", true)
	checkLegend(tb)
	devShot(tb, "counter.png")
	if got := download(tb, "counter-failure.json"); !bytes.Equal(got, counterJSON) {
		t.Errorf("Download JSON of the opened file saved %d bytes that differ from the file (%d bytes)", len(got), len(counterJSON))
	}

	// Drag and drop: the sample again, renamed, with its hostile SQL.
	dropped := sample()
	dropped.Scenario.Name = "dropped"
	droppedJSON, err := artifact.Encode(dropped)
	if err != nil {
		t.Fatal(err)
	}
	var overlay struct{ During, After bool }
	tb.eval(dropJS("dropped.json", string(droppedJSON)), &overlay)
	if !overlay.During || overlay.After {
		t.Errorf("the drop overlay was shown %v while dragging and %v after the drop; want shown, then hidden", overlay.During, overlay.After)
	}
	tb.poll("the dropped artifact is shown", `document.getElementById('scenario-name').textContent === 'dropped'`)
	var hostileText bool
	tb.eval(`[...document.querySelectorAll('#timeline .unit-sql')].some((e) => e.textContent === `+jsString(hostile)+`) && document.querySelectorAll('script').length === 3`, &hostileText)
	if !hostileText {
		t.Error("the dropped artifact's hostile SQL is not shown as text (or a script element appeared)")
	}

	checkRefusals(tb, counterJSON)

	tb.run("go back to the report's artifact", chromedp.Click(chromedp.CSS("#show-embedded")))
	tb.poll("the report's own artifact is shown", `document.getElementById('scenario-name').textContent === 'sample' && document.getElementById('show-embedded').hidden`)
	tb.clean(pageURL)
}

// dropJS drops a file named name holding text on the timeline, as a person
// dragging it from a file manager would, and says whether the overlay showed
// during the drag and after the drop.
func dropJS(name, text string) string {
	return `(() => {
	  const dt = new DataTransfer();
	  dt.items.add(new File([` + jsString(text) + `], ` + jsString(name) + `, {type: 'application/json'}));
	  const target = document.getElementById('timeline');
	  const fire = (type) => target.dispatchEvent(new DragEvent(type, {dataTransfer: dt, bubbles: true, cancelable: true}));
	  fire('dragenter');
	  fire('dragover');
	  const during = !document.getElementById('drop-overlay').hidden;
	  fire('drop');
	  return {during, after: !document.getElementById('drop-overlay').hidden};
	})()`
}

// refusal is a file the page must treat as artifact.Decode does.
type refusal struct {
	name string
	data []byte
}

// edited is the counter's artifact with one change made to its JSON.
func edited(t *testing.T, base []byte, change func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(base, &m); err != nil {
		t.Fatal(err)
	}
	change(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func obj(v any, keys ...any) map[string]any {
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			v = v.(map[string]any)[k]
		case int:
			v = v.([]any)[k]
		}
	}
	return v.(map[string]any)
}

func refusals(t *testing.T, base []byte) []refusal {
	e := func(change func(m map[string]any)) []byte { return edited(t, base, change) }
	return []refusal{
		{"not JSON", []byte(`{"schemaVersion": 1,`)},
		{"a JSON array", []byte(`[{"schemaVersion": 1}]`)},
		{"null", []byte(`null`)},
		{"no schemaVersion", []byte(`{"scenario": {"name": "x"}}`)},
		{"schemaVersion as text", []byte(`{"schemaVersion": "1"}`)},
		{"a newer schema", e(func(m map[string]any) { m["schemaVersion"] = 2 })},
		{"an unknown field holding markup", e(func(m map[string]any) { m["notes"] = `<img src=x onerror=alert(1)>` })},
		{"an unknown field in a unit", e(func(m map[string]any) { obj(m, "units", 0)["script"] = "alert(1)" })},
		{"a string for a number", e(func(m map[string]any) { obj(m, "units", 0)["conn"] = "0" })},
		{"a negative backend PID", e(func(m map[string]any) { obj(m, "units", 0)["backendPid"] = -1 })},
		{"a fraction", e(func(m map[string]any) { obj(m, "units", 0)["rows"] = 1.5 })},
		{"an integer out of range", e(func(m map[string]any) { obj(m, "units", 0)["conn"] = 1e20 })},
		{"an object for a list", e(func(m map[string]any) { m["units"] = map[string]any{} })},
		{"a time that is not RFC 3339", e(func(m map[string]any) { m["createdAt"] = "yesterday" })},
		{"an unknown outcome holding a script", e(func(m map[string]any) { obj(m, "outcome")["kind"] = "<script>alert(1)</script>" })},
		{"an actor name holding markup", e(func(m map[string]any) { obj(m, "scenario")["actors"].([]any)[0] = "</script><b>" })},
		{"no scenario name", e(func(m map[string]any) { obj(m, "scenario")["name"] = "" })},
		{"a decision naming no recorded unit", e(func(m map[string]any) { obj(m, "schedule", "decisions", 0, "release", 0)["unit"] = 99 })},
		{"a decision out of order", e(func(m map[string]any) { obj(m, "schedule", "decisions", 1)["step"] = 7 })},
		{"a unit recorded twice", e(func(m map[string]any) { m["units"] = append(m["units"].([]any), m["units"].([]any)[0]) })},
		{"an explanation naming an unknown anomaly in markup", e(func(m map[string]any) {
			m["explanation"] = explanationOf(func(x map[string]any) { x["anomaly"].(map[string]any)["name"] = "<b>lost</b>" })
		})},
		{"an explanation with a transaction of no actor", e(func(m map[string]any) {
			m["explanation"] = explanationOf(func(x map[string]any) { x["cycle"].([]any)[1].(map[string]any)["to"] = "mallory:1" })
		})},
		{"an explanation with a step past the schedule", e(func(m map[string]any) {
			m["explanation"] = explanationOf(func(x map[string]any) { x["cycle"].([]any)[0].(map[string]any)["toStep"] = 99 })
		})},
		{"an explanation with an unknown fix class", e(func(m map[string]any) {
			m["explanation"] = explanationOf(func(x map[string]any) { x["fix"] = map[string]any{"class": "pray", "advice": ""} })
		})},
		// Files artifact.Decode accepts, which the page must accept too.
		{"an explanation", e(func(m map[string]any) { m["explanation"] = explanationOf(func(map[string]any) {}) })},
		{"keys in another case", e(func(m map[string]any) { m["MODE"] = m["mode"]; delete(m, "mode") })},
		{"nulls for optional parts", e(func(m map[string]any) { m["search"] = nil; obj(m, "units", 0)["tags"] = nil })},
	}
}

// checkRefusals drops each case on the page and compares what the page does
// with what artifact.Decode says.
func checkRefusals(tb *tab, base []byte) {
	t := tb.t
	t.Helper()
	for i, c := range refusals(t, base) {
		_, goErr := artifact.Decode(c.data)
		var before string
		tb.eval(`document.getElementById('scenario-name').textContent`, &before)
		name := "case-" + string(rune('a'+i)) + ".json"
		tb.eval(dropJS(name, string(c.data)), nil)
		tb.poll(c.name, `(() => { const s = document.getElementById('open-status').textContent; return s.includes(`+jsString(name)+`) && !s.startsWith('Reading'); })()`)
		var r struct {
			Status, Tone, Scenario string
			Markup                 bool
		}
		tb.eval(`({status: document.getElementById('open-status').textContent, tone: document.getElementById('open-status').className,
		  scenario: document.getElementById('scenario-name').textContent,
		  markup: !!document.querySelector('main img, main b, body > script:not([type]) ~ script, #outcome b')})`, &r)
		accepted := strings.HasPrefix(r.Status, "Showing")
		if accepted != (goErr == nil) {
			t.Errorf("%s: the page accepted it %v, artifact.Decode %v (%v); page says %q", c.name, accepted, goErr == nil, goErr, r.Status)
			continue
		}
		if r.Markup {
			t.Errorf("%s: markup from the file became elements in the page", c.name)
		}
		if accepted {
			continue
		}
		if !strings.Contains(r.Tone, "tone-bad") || !strings.HasPrefix(r.Status, "\u201c"+name+"\u201d was not opened: ") || !strings.Contains(r.Status, "The page still shows") || r.Scenario != before {
			t.Errorf("%s: the refusal reads %q (%s), the page shows %q (before %q)", c.name, r.Status, r.Tone, r.Scenario, before)
		}
		t.Logf("%-38s page: %s\n%38s  CLI: %v", c.name, strings.TrimPrefix(r.Status, "\u201c"+name+"\u201d was not opened: "), "", goErr)
	}
}

// explanationOf is a lost update between the counter's actors as an
// artifact keeps it (JSON), with one change made.
func explanationOf(change func(x map[string]any)) map[string]any {
	x := map[string]any{
		"anomaly": map[string]any{"name": "lost update", "adya": "G-single", "sentence": "lost update: alice:1 ..."},
		"cycle": []any{
			map[string]any{"from": "alice:1", "to": "bob:1", "kind": "rw", "relation": "public.counter", "fromStep": 2, "toStep": 5, "commitStep": 7},
			map[string]any{"from": "bob:1", "to": "alice:1", "kind": "ww", "relation": "public.counter", "fromStep": 5, "toStep": 6},
		},
	}
	change(x)
	return x
}

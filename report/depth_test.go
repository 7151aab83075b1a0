package report_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pginterleave/interleave/report"
)

// TestDeepValueMakesNoHugePage: an actor value nested thousands deep (a
// few KB) is shown to depth 64 with "…" beyond, so the page stays small
// (issue 19 item 3: 9,990 deep made 200 MB of HTML and took 1.6 GB); the
// artifact given is not changed.
func TestDeepValueMakesNoHugePage(t *testing.T) {
	a := sample()
	deep := strings.Repeat("[", 3000) + "1" + strings.Repeat("]", 3000)
	a.Actors[0].Value = json.RawMessage(deep)
	var buf bytes.Buffer
	if err := report.Render(&buf, a, report.Options{ReplayCommand: "interleave replay x.json"}); err != nil {
		t.Fatal(err)
	}
	if buf.Len() > 1<<20 {
		t.Fatalf("the page of a %d-byte value is %d bytes", len(deep), buf.Len())
	}
	if !strings.Contains(buf.String(), `"…"`) && !strings.Contains(buf.String(), `"\u2026"`) {
		t.Fatal("the cut is not shown")
	}
	if string(a.Actors[0].Value) != deep {
		t.Fatal("Render changed the artifact")
	}
}

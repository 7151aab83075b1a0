package report_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"html"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/internal/testkit/golden"
	"github.com/pginterleave/interleave/report"
)

const hostile = "SELECT '</script><script>alert(1)</script>'"

// sample is a small hand-built artifact: alice locks a row, bob's UPDATE
// waits on her, bob runs a hostile statement and a comment opener, a unit
// fails with a SQLSTATE, two are released as a pair, one is never released.
func sample() *artifact.Artifact {
	ref := func(actor string, unit int) artifact.UnitRef { return artifact.UnitRef{Actor: actor, Unit: unit} }
	dec := func(step int, choice bool, rel ...artifact.UnitRef) artifact.Decision {
		return artifact.Decision{Step: step, Release: rel, Candidates: rel, Choice: choice}
	}
	return &artifact.Artifact{
		SchemaVersion: artifact.SchemaVersion,
		Tool:          artifact.Tool{Name: "interleave", Version: "test"},
		CreatedAt:     time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Scenario:      artifact.Scenario{Name: "sample", Actors: []string{"alice", "bob"}, Kind: "go"},
		Mode:          "run",
		Outcome:       artifact.Outcome{Kind: "violation", Message: "v must stay 0 </script><!-- got 1\u2028", ExitCode: 1},
		Schedule: artifact.Schedule{
			Decisions: []artifact.Decision{
				dec(0, false, ref("alice", 0)),
				dec(1, true, ref("alice", 1)),
				dec(2, false, ref("bob", 0), ref("alice", 2)),
				dec(3, false, ref("bob", 1)),
				dec(4, false, ref("alice", 3)),
			},
			Choices: []artifact.Choice{{Step: 1, Release: []artifact.UnitRef{ref("alice", 1)}}},
		},
		Units: []artifact.Unit{
			{Actor: "alice", Unit: 0, Protocol: "simple", Messages: "Q", SQL: []string{"begin"}, ReleaseStep: 0, Completed: true, Tags: []string{"BEGIN"}, TxStatus: "T", PendingUS: 10, ReleasedUS: 20, CompletedUS: 30},
			{Actor: "alice", Unit: 1, Protocol: "simple", Messages: "Q", SQL: []string{"SELECT v FROM t WHERE id = 1 FOR UPDATE"}, Params: [][]artifact.Param{{}}, ReleaseStep: 1, Completed: true, Tags: []string{"SELECT 1"}, Rows: 1, TxStatus: "T"},
			{Actor: "bob", Unit: 0, Protocol: "extended", Messages: "PBDES", SQL: []string{hostile}, Params: [][]artifact.Param{{{Text: "<!-- x", Size: 6}, {Text: "</script>", Size: 9}}}, ReleaseStep: 2, Pair: true, Completed: true, Tags: []string{"SELECT 1"}, Rows: 1, TxStatus: "I"},
			{Actor: "alice", Unit: 2, Protocol: "simple", Messages: "Q", SQL: []string{"SELECT 1/0 -- <!-- comment"}, ReleaseStep: 2, Pair: true, Completed: true, SQLState: "22012", Error: "division by zero", TxStatus: "E"},
			{Actor: "bob", Unit: 1, Protocol: "simple", Messages: "Q", SQL: []string{"UPDATE t SET v = v + 1 WHERE id = 1"}, ReleaseStep: 3, Completed: true, Tags: []string{"UPDATE 1"}, Rows: 1, TxStatus: "I",
				LockWaits: []artifact.LockWait{{Step: 3, AtUS: 500, BlockingActors: []string{"alice"}, BlockingPIDs: []uint32{42}}}},
			{Actor: "alice", Unit: 3, Protocol: "simple", Messages: "Q", SQL: []string{"rollback"}, ReleaseStep: 4, Completed: true, Tags: []string{"ROLLBACK"}, TxStatus: "I"},
			{Actor: "bob", Unit: 2, Protocol: "simple", Messages: "Q", SQL: []string{"SELECT pg_sleep(10)"}, ReleaseStep: -1, PendingStep: 4},
		},
		Actors:      []artifact.ActorResult{{Actor: "alice", Value: json.RawMessage(`"</script><!--\u2028"`)}, {Actor: "bob", Error: "<b>boom</b>"}},
		Cancels:     []artifact.Cancel{{Actor: "bob", PID: 43, Forwarded: true, AtUS: 900}},
		Environment: artifact.Environment{PostgresVersion: "16.4", GoVersion: "go1.26", InterleaveVersion: "test", OS: "linux", Arch: "amd64"},
		Fingerprint: &artifact.Fingerprint{
			Sources:       []artifact.SourceFile{{Path: "main.go", Size: 100, SHA256: "ab"}},
			ServerVersion: "PostgreSQL 16.4",
			Database:      &artifact.DatabasePrint{Hash: "dbhash", Objects: map[string]int{"tables": 1}, Parts: map[string]string{"table public.t": "1 rows, md5 ff"}},
		},
		Limits: artifact.Limits{AttemptTimeoutMS: 30000, Connections: "single-producer", ProtocolProfile: "sync-cycle"},
	}
}

// TestSampleFile keeps testdata/sample.json, the artifact the browser
// tests (report/browsertest, a package of their own so that chromedp stays
// out of the module graph of programs that import report) open, equal to
// sample().
func TestSampleFile(t *testing.T) {
	b, err := artifact.Encode(sample())
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/sample.json", b)
}

func render(t *testing.T, a *artifact.Artifact, o report.Options) string {
	t.Helper()
	var buf bytes.Buffer
	if err := report.Render(&buf, a, o); err != nil {
		t.Fatalf("Render: %v", err)
	}
	return buf.String()
}

// jsonBlock returns the content of the page's JSON script element id.
func jsonBlock(t *testing.T, page, id string) string {
	t.Helper()
	open := `<script type="application/json" id="` + id + `">`
	i := strings.Index(page, open)
	if i < 0 {
		t.Fatalf("no %s JSON block in the page", id)
	}
	rest := page[i+len(open):]
	j := strings.Index(rest, "</script>")
	if j < 0 {
		t.Fatalf("the %s JSON block is not closed", id)
	}
	return rest[:j]
}

func embedded(t *testing.T, page string) string { return jsonBlock(t, page, "artifact-data") }

// pageConfig is what the tests read of the page's settings block.
type pageConfig struct {
	SchemaVersion int             `json:"schemaVersion"`
	MaxFileSize   int64           `json:"maxFileSize"`
	Schema        json.RawMessage `json:"schema"`
	Outcomes      map[string]struct {
		Verdict, Tone string
	} `json:"outcomes"`
	ReplayCommand string `json:"replayCommand"`
	ReplayGeneric bool   `json:"replayGeneric"`
	FileName      string `json:"fileName"`
}

func config(t *testing.T, page string) pageConfig {
	t.Helper()
	var c pageConfig
	if err := json.Unmarshal([]byte(jsonBlock(t, page, "report-config")), &c); err != nil {
		t.Fatalf("the page's settings block is not JSON: %v", err)
	}
	return c
}

func TestRenderEmbedsTheArtifact(t *testing.T) {
	a := sample()
	page := render(t, a, report.Options{ReplayCommand: "interleave replay ./examples/sample failure.json"})
	for _, want := range []string{"<!DOCTYPE html>", "Invariant violated", "tone-bad", `data-outcome="violation"`, "<title>Invariant violated: sample (Interleave report)</title>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// The embedded JSON is the artifact as artifact.Write stores it, byte
	// for byte (the page's "Download JSON" gives these bytes); it decodes
	// and validates, and every string survived the escaping.
	want, err := artifact.Encode(a)
	if err != nil {
		t.Fatal(err)
	}
	if embedded(t, page) != string(want) {
		t.Fatal("the embedded JSON is not artifact.Encode's encoding of the artifact")
	}
	got, err := artifact.Decode([]byte(embedded(t, page)))
	if err != nil {
		t.Fatalf("the embedded JSON is not a valid artifact: %v", err)
	}
	if got.Outcome.Message != a.Outcome.Message || got.Units[2].SQL[0] != hostile || got.Units[2].Params[0][1].Text != "</script>" || string(got.Actors[0].Value) != `"\u003c/script\u003e\u003c!--\u2028"` {
		t.Fatalf("the embedded artifact differs: message %q, SQL %q, params %q, value %s", got.Outcome.Message, got.Units[2].SQL, got.Units[2].Params, got.Actors[0].Value)
	}
	var v string
	if err := json.Unmarshal(got.Actors[0].Value, &v); err != nil || v != "</script><!--\u2028" {
		t.Fatalf("actor value decodes to %q (%v)", v, err)
	}
	c := config(t, page)
	if c.SchemaVersion != artifact.SchemaVersion || c.MaxFileSize != artifact.MaxFileSize || c.ReplayCommand != "interleave replay ./examples/sample failure.json" || c.ReplayGeneric {
		t.Errorf("the page's settings are %+v", c)
	}
}

func TestReplayCommandAndFileName(t *testing.T) {
	c := config(t, render(t, sample(), report.Options{}))
	if c.ReplayCommand != "interleave replay ./sample sample-failure.json" || !c.ReplayGeneric {
		t.Errorf("without a replay command the page shows %q (generic %v); want the generic one", c.ReplayCommand, c.ReplayGeneric)
	}
	for _, tc := range []struct {
		name, kind, want string
	}{
		{"", "violation", "sample-failure.json"},
		{"", "actor-error", "sample-failure.json"},
		{"", "pass", "sample-pass.json"},
		{"out/run 1.json", "violation", "run 1.json"},
	} {
		a := sample()
		a.Outcome.Kind = tc.kind
		if got := config(t, render(t, a, report.Options{FileName: tc.name})).FileName; got != tc.want {
			t.Errorf("FileName %q, outcome %s: the download is named %q; want %q", tc.name, tc.kind, got, tc.want)
		}
	}
}

// TestOutcomeWords makes sure the page knows exactly the outcome kinds
// artifact.Validate accepts (the page refuses a file with any other).
func TestOutcomeWords(t *testing.T) {
	c := config(t, render(t, sample(), report.Options{}))
	for kind := range c.Outcomes {
		a := sample()
		a.Outcome.Kind = kind
		if err := artifact.Validate(a); err != nil {
			t.Errorf("the page knows outcome %q, which artifact.Validate refuses: %v", kind, err)
		}
	}
	for _, kind := range []string{"pass", "violation", "actor-error", "harness-error", "inconclusive", "incompatible"} {
		if _, ok := c.Outcomes[kind]; !ok {
			t.Errorf("the page does not know outcome %q", kind)
		}
	}
}

// TestSchemaGolden pins the schema the page validates opened files
// against: it is derived from the artifact's Go types, so a change to them
// shows up here (go test ./report -run SchemaGolden -update rewrites the golden file).
func TestSchemaGolden(t *testing.T) {
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, config(t, render(t, sample(), report.Options{})).Schema, "", "  "); err != nil {
		t.Fatal(err)
	}
	pretty.WriteByte('\n')
	golden.Check(t, "testdata/schema.golden.json", pretty.Bytes())
}

func TestInvalidArtifactIsRefused(t *testing.T) {
	for name, breakIt := range map[string]func(*artifact.Artifact){
		"unknown outcome": func(a *artifact.Artifact) { a.Outcome.Kind = "<script>" },
		"unknown actor":   func(a *artifact.Artifact) { a.Units[0].Actor = "mallory" },
		"bad step":        func(a *artifact.Artifact) { a.Schedule.Decisions[1].Step = 7 },
		"bad actor name":  func(a *artifact.Artifact) { a.Scenario.Actors[0] = "</script>" },
	} {
		a := sample()
		breakIt(a)
		var buf bytes.Buffer
		err := report.Render(&buf, a, report.Options{})
		if !errors.Is(err, artifact.ErrInvalid) {
			t.Errorf("%s: Render returned %v; want an error wrapping artifact.ErrInvalid", name, err)
		}
		if buf.Len() != 0 {
			t.Errorf("%s: Render wrote %d bytes for an invalid artifact", name, buf.Len())
		}
	}
	if err := report.Render(&bytes.Buffer{}, nil, report.Options{}); err == nil {
		t.Error("Render accepted a nil artifact")
	}
}

func TestEmbeddedJSONCannotEndTheScript(t *testing.T) {
	page := render(t, sample(), report.Options{ReplayCommand: "echo '</script><!--'"})
	for _, raw := range []string{"</script><script>alert(1)", "alert(1)</script>", "<!--", "<b>boom"} {
		if strings.Contains(page, raw) {
			t.Errorf("the page contains %q raw", raw)
		}
	}
	if n := strings.Count(page, "<script"); n != 3 {
		t.Errorf("the page has %d <script elements; want 3 (the artifact, the settings and the page's own script)", n)
	}
	if n := strings.Count(page, "</script>"); n != 3 {
		t.Errorf("the page has %d </script> tags; want 3", n)
	}
	for _, id := range []string{"artifact-data", "report-config"} {
		if strings.ContainsAny(jsonBlock(t, page, id), "<>&\u2028\u2029") {
			t.Errorf("the %s block has an unescaped <, >, &, U+2028 or U+2029", id)
		}
	}
	data := embedded(t, page)
	if !strings.Contains(data, `\u003c/script\u003e\u003cscript\u003ealert(1)`) || !strings.Contains(data, `\u003c!--`) || !strings.Contains(data, `\u2028`) {
		t.Error("the embedded JSON does not carry the hostile strings in escaped form")
	}
	if !strings.Contains(jsonBlock(t, page, "report-config"), `echo '\u003c/script\u003e\u003c!--'`) {
		t.Error("the settings block does not carry the replay command in escaped form")
	}
	// Text rendered on the server is escaped as HTML.
	if !strings.Contains(page, "&lt;/script&gt;&lt;!-- got 1") {
		t.Error("the outcome message is not HTML-escaped")
	}
}

// TestNoExternalReferences: the markup refers to no resource, the style
// loads nothing, and the script has no way to reach the network.
func TestNoExternalReferences(t *testing.T) {
	page := render(t, sample(), report.Options{})
	for _, bad := range []string{"http://", "https://", "//cdn", "@import", "<link", "<img", "<iframe", "<object", "<embed", "<base", "eval(", "innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "new Function"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page contains %q", bad)
		}
	}
	scripts := regexp.MustCompile(`(?s)<script[^>]*>.*?</script>`)
	markup := scripts.ReplaceAllString(page, "")
	for _, m := range regexp.MustCompile(`(?i)\b(?:src|href|action|srcset|poster|formaction|data)\s*=`).FindAllString(markup, -1) {
		t.Errorf("the markup refers to a resource: %q", m)
	}
	style := regexp.MustCompile(`(?s)<style>(.*?)</style>`).FindStringSubmatch(page)
	if style == nil || regexp.MustCompile(`(?i)url\(|image-set|@font-face`).MatchString(style[1]) {
		t.Error("the style refers to a resource (or is missing)")
	}
	script := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindStringSubmatch(page)
	if script == nil {
		t.Fatal("no inline script")
	}
	for _, bad := range []string{"fetch(", "XMLHttpRequest", "WebSocket", "EventSource", "sendBeacon", "import(", "Worker(", "window.open", "location", ".src", "setTimeout(", "setInterval("} {
		if strings.Contains(script[1], bad) {
			t.Errorf("the script uses %q", bad)
		}
	}
}

func TestContentSecurityPolicy(t *testing.T) {
	page := render(t, sample(), report.Options{})
	m := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]+)">`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no Content-Security-Policy meta tag")
	}
	csp := html.UnescapeString(m[1])
	if !strings.HasPrefix(csp, "default-src 'none'; ") || strings.Contains(csp, "unsafe") || strings.Contains(csp, "*") {
		t.Fatalf("the policy is not strict: %s", csp)
	}
	if strings.Index(page, "Content-Security-Policy") > strings.Index(page, "<style>") {
		t.Fatal("the policy comes after the style element")
	}
	hash := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	style := regexp.MustCompile(`(?s)<style>(.*?)</style>`).FindStringSubmatch(page)
	script := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindStringSubmatch(page)
	if style == nil || script == nil {
		t.Fatal("no inline style or script")
	}
	for _, want := range []string{"script-src " + hash(script[1]) + ";", "style-src " + hash(style[1]) + ";", "base-uri 'none'", "form-action 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("the policy %q lacks %q", csp, want)
		}
	}
}

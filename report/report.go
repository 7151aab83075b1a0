package report

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/explain"
)

//go:embed assets/page.html assets/report.css assets/*.js
var assets embed.FS

// scripts are concatenated, in this order, into the page's one inline
// script: helpers first, start-up (main.js) last.
var scripts = []string{
	"assets/util.js", "assets/validate.js", "assets/model.js", "assets/header.js",
	"assets/legend.js", "assets/explain.js", "assets/timeline.js", "assets/inspector.js", "assets/open.js", "assets/main.js",
}

var page = template.Must(template.New("page.html").ParseFS(assets, "assets/page.html"))

// Options tune a rendered page.
type Options struct {
	// ReplayCommand is the command shown with a copy button, for example
	// "interleave replay ./examples/counter failure.json". Empty shows a
	// generic command built from the scenario name.
	ReplayCommand string
	// FileName is the name the page's "Download JSON" button gives the
	// artifact. Empty: NAME-failure.json for a failure, NAME-KIND.json
	// otherwise.
	FileName string
	// Explanation, when set, is what explain found for this artifact: the
	// page shows it and draws its dependency cycle over the lanes.
	Explanation *explain.Explanation
}

// pageData is what page.html renders. Every string is escaped by
// html/template; the template.CSS and template.JS values are this package's
// own assets and JSON checked by scriptJSON. The script fills the rest of
// the page from the two JSON blocks, as text.
type pageData struct {
	CSP     string
	Title   string
	CSS     template.CSS
	JS      template.JS
	Data    template.JS
	Config  template.JS
	Tone    string
	Verdict string
	A       *artifact.Artifact
}

// verdict puts an outcome kind into words and a colour tone.
type verdict struct {
	Verdict string `json:"verdict"`
	Tone    string `json:"tone"`
}

// verdicts are the outcome kinds an artifact may have (artifact.Validate
// refuses any other) and how the page shows them.
var verdicts = map[string]verdict{
	"violation":     {"Invariant violated", "bad"},
	"pass":          {"Passed", "good"},
	"actor-error":   {"Actor error", "warn"},
	"harness-error": {"Harness error", "warn"},
	"inconclusive":  {"Inconclusive", "warn"},
	"incompatible":  {"Incompatible replay", "warn"},
}

// pageConfig is the page's second JSON block: what the script needs besides
// the artifact, among it the rules to validate another artifact file the
// way artifact.Read does.
type pageConfig struct {
	SchemaVersion int                  `json:"schemaVersion"`
	MaxFileSize   int64                `json:"maxFileSize"`
	Schema        *schemaNode          `json:"schema"`
	Outcomes      map[string]verdict   `json:"outcomes"`
	ReplayCommand string               `json:"replayCommand"`
	ReplayGeneric bool                 `json:"replayGeneric"`
	FileName      string               `json:"fileName"`
	Explanation   *explain.Explanation `json:"explanation,omitempty"`
	// Explain is what an artifact's explanation may hold, for the page's
	// validator (artifact.Validate's rules).
	Explain explainValues `json:"explain"`
}

// explainValues are the values and bounds artifact.Validate accepts in an
// artifact's explanation.
type explainValues struct {
	Names     []string          `json:"names"`
	Adya      []string          `json:"adya"`
	Kinds     []explain.DepKind `json:"kinds"`
	Fixes     []string          `json:"fixes"`
	Levels    []string          `json:"levels"`
	MaxCycle  int               `json:"maxCycle"`
	MaxTrials int               `json:"maxTrials"`
	MaxLevels int               `json:"maxLevels"`
	MaxErrors int               `json:"maxLevelErrors"`
	MaxNotes  int               `json:"maxNotes"`
}

// Render validates a and writes the report page to w. The page loads
// nothing: its style and script are inline and allowed by their SHA-256
// hashes only, and the artifact is embedded as JSON that the script reads as
// data and puts into the page as text.
func Render(w io.Writer, a *artifact.Artifact, opts Options) error {
	if a == nil {
		return errors.New("report: no artifact")
	}
	if err := artifact.Validate(a); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	a = shallowValues(a)
	// The embedded JSON is artifact.Encode's, so "Download JSON" gives the
	// bytes artifact.Write stores (unless a value was cut to depth).
	encoded, err := artifact.Encode(a)
	if err != nil {
		return fmt.Errorf("report: encode the artifact: %w", err)
	}
	if err := scriptSafe(encoded); err != nil {
		return fmt.Errorf("report: encode the artifact: %w", err)
	}
	schema, err := artifactSchema()
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	replay, generic := opts.ReplayCommand, false
	if strings.TrimSpace(replay) == "" {
		replay, generic = GenericReplayCommand(a), true
	}
	cfg, err := scriptJSON(pageConfig{
		SchemaVersion: artifact.SchemaVersion, MaxFileSize: artifact.MaxFileSize, Schema: schema,
		Outcomes: verdicts, ReplayCommand: replay, ReplayGeneric: generic, FileName: fileName(a, opts.FileName),
		Explanation: opts.Explanation,
		Explain: explainValues{Names: explain.Names, Adya: explain.AdyaNames, Kinds: explain.DepKinds, Fixes: explain.FixClasses, Levels: explain.LevelNames,
			MaxCycle: artifact.MaxCycle, MaxTrials: artifact.MaxTrials, MaxLevels: artifact.MaxLevels, MaxErrors: artifact.MaxLevelErrors, MaxNotes: artifact.MaxNotes},
	})
	if err != nil {
		return fmt.Errorf("report: encode the page's settings: %w", err)
	}
	css, err := assets.ReadFile("assets/report.css")
	if err != nil {
		return err
	}
	js, err := script()
	if err != nil {
		return err
	}
	v, tone := describe(a.Outcome.Kind)
	d := pageData{
		CSP: "default-src 'none'; script-src " + hash(js) + "; style-src " + hash(string(css)) +
			"; img-src 'none'; connect-src 'none'; base-uri 'none'; form-action 'none'",
		Title:   v + ": " + a.Scenario.Name + " (Interleave report)",
		CSS:     template.CSS(css),
		JS:      template.JS(js),
		Data:    template.JS(encoded),
		Config:  template.JS(cfg),
		Tone:    tone,
		Verdict: v,
		A:       a,
	}
	var buf bytes.Buffer
	if err := page.Execute(&buf, d); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// shallowValues returns a, or a copy of a whose actor values nested deeper
// than artifact.MaxValueDepth show "…" there: the page embeds the artifact
// indented, two spaces a level a line, so a 20 KB value nested 9,990 deep
// made a 200 MB page (issue 19 item 3). a itself is not changed.
func shallowValues(a *artifact.Artifact) *artifact.Artifact {
	var actors []artifact.ActorResult
	for i, r := range a.Actors {
		v, cut := artifact.CutDepth(r.Value, artifact.MaxValueDepth)
		if !cut {
			continue
		}
		if actors == nil {
			actors = append([]artifact.ActorResult(nil), a.Actors...)
		}
		actors[i].Value = v
	}
	if actors == nil {
		return a
	}
	c := *a
	c.Actors = actors
	return &c
}

// fileName is the download name of a's JSON.
func fileName(a *artifact.Artifact, name string) string {
	if name = filepath.Base(strings.TrimSpace(name)); name != "." && name != "/" && name != "" {
		return name
	}
	if a.Outcome.Failed() {
		return a.Scenario.Name + "-failure.json"
	}
	return a.Scenario.Name + "-" + a.Outcome.Kind + ".json"
}

// scriptJSON encodes v for a <script type="application/json"> element.
func scriptJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	if err := scriptSafe(b); err != nil {
		return "", err
	}
	return string(b), nil
}

// scriptSafe makes sure JSON can sit inside a script element. encoding/json
// escapes <, >, & and U+2028/U+2029, so neither "</script", "<!--" nor a
// line separator can appear; the check makes sure of it.
func scriptSafe(b []byte) error {
	if bytes.ContainsAny(b, "<>&\u2028\u2029") {
		return errors.New("the JSON encoding left a character unescaped that could end the script element")
	}
	return nil
}

// script is the page's one inline script: the assets in one strict-mode
// function, so that nothing leaks into the global scope.
func script() (string, error) {
	var b strings.Builder
	b.WriteString("\n(function () {\n'use strict';\n")
	for _, name := range scripts {
		src, err := assets.ReadFile(name)
		if err != nil {
			return "", err
		}
		b.Write(src)
	}
	b.WriteString("})();\n")
	return b.String(), nil
}

// hash is a CSP source expression allowing exactly this inline content.
func hash(content string) string {
	sum := sha256.Sum256([]byte(content))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// describe puts an outcome kind into words and a colour tone.
func describe(kind string) (verdict, tone string) {
	if v, ok := verdicts[kind]; ok {
		return v.Verdict, v.Tone
	}
	return kind, "warn"
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:=@%+,-]+$`)

// ShellQuote quotes s for a POSIX shell when it needs it.
func ShellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// GenericReplayCommand is the replay command for a when the caller knows
// neither the program directory nor the artifact's file name: the scenario
// program's directory (or ./NAME) and NAME-failure.json.
func GenericReplayCommand(a *artifact.Artifact) string {
	dir := a.Scenario.Program
	if dir == "" {
		dir = "./" + a.Scenario.Name
	}
	file := a.Scenario.Name + "-failure.json"
	return "interleave replay " + ShellQuote(dir) + " " + ShellQuote(file)
}

// ReplayCommand is the replay command for the artifact stored at path.
func ReplayCommand(a *artifact.Artifact, path string) string {
	dir := a.Scenario.Program
	if dir == "" {
		dir = "./" + a.Scenario.Name
	}
	return "interleave replay " + ShellQuote(dir) + " " + ShellQuote(path)
}

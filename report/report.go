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
	"regexp"
	"strings"

	"github.com/pginterleave/interleave/artifact"
)

//go:embed assets/page.html assets/report.css assets/util.js assets/timeline.js assets/inspector.js
var assets embed.FS

// scripts are concatenated, in this order, into the page's one inline script.
var scripts = []string{"assets/util.js", "assets/timeline.js", "assets/inspector.js"}

var page = template.Must(template.New("page.html").ParseFS(assets, "assets/page.html"))

// Options tune a rendered page.
type Options struct {
	// ReplayCommand is the command shown with a copy button, for example
	// "interleave replay ./examples/counter failure.json". Empty shows a
	// generic command built from the scenario name.
	ReplayCommand string
}

// pageData is what page.html renders. Every string is escaped by
// html/template; the template.CSS and template.JS values are this package's
// own assets and the escaped artifact JSON.
type pageData struct {
	CSP           string
	Title         string
	CSS           template.CSS
	JS            template.JS
	Data          template.JS
	Tone          string
	Verdict       string
	A             *artifact.Artifact
	Facts         []string
	Results       []result
	Replay        string
	ReplayGeneric bool
	Environment   []kv
	Fingerprint   []kv
	Objects       []kv
	Parts         []kv
	Settings      []kv
	Limits        []kv
}

type kv struct{ K, V string }

type result struct{ Actor, Value, Error string }

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
	data, err := scriptJSON(a)
	if err != nil {
		return fmt.Errorf("report: encode the artifact: %w", err)
	}
	replay, generic := opts.ReplayCommand, false
	if strings.TrimSpace(replay) == "" {
		replay, generic = GenericReplayCommand(a), true
	}
	css, err := assets.ReadFile("assets/report.css")
	if err != nil {
		return err
	}
	js, err := script()
	if err != nil {
		return err
	}
	verdict, tone := describe(a.Outcome.Kind)
	d := pageData{
		CSP: "default-src 'none'; script-src " + hash(js) + "; style-src " + hash(string(css)) +
			"; img-src 'none'; connect-src 'none'; base-uri 'none'; form-action 'none'",
		Title:         verdict + ": " + a.Scenario.Name + " (Interleave report)",
		CSS:           template.CSS(css),
		JS:            template.JS(js),
		Data:          template.JS(data),
		Tone:          tone,
		Verdict:       verdict,
		A:             a,
		Facts:         facts(a),
		Results:       results(a),
		Replay:        replay,
		ReplayGeneric: generic,
	}
	sections(a, &d)
	var buf bytes.Buffer
	if err := page.Execute(&buf, d); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// scriptJSON encodes v for a <script type="application/json"> element.
// encoding/json escapes <, >, & and U+2028/U+2029, so neither "</script",
// "<!--" nor a line separator can appear; the check makes sure of it.
func scriptJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	if bytes.ContainsAny(b, "<>&\u2028\u2029") {
		return "", errors.New("the JSON encoding left a character unescaped that could end the script element")
	}
	return string(b), nil
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
	switch kind {
	case "violation":
		return "Invariant violated", "bad"
	case "pass":
		return "Passed", "good"
	case "actor-error":
		return "Actor error", "warn"
	case "harness-error":
		return "Harness error", "warn"
	case "inconclusive":
		return "Inconclusive", "warn"
	case "incompatible":
		return "Incompatible replay", "warn"
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

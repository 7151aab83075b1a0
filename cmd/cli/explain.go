package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/engine"
	"github.com/pginterleave/interleave/explain"
	"github.com/pginterleave/interleave/report"
)

// explainFlags are explain's own: the JSON output and the scenario to use.
var explainFlags = []flagDef{
	{"json", "print the explanation as JSON on stdout (docs/json/explain.v1.schema.json; errors too)", boolFlag(func(s *settings) *bool { return &s.json }), ""},
	{"out", "also write the explanation as JSON to this file", strFlag(func(s *settings) *string { return &s.opts.Output.Out }), ""},
	{"report", "also write the HTML report of the artifact with the explanation and its cycle drawn over the lanes to this file", strFlag(func(s *settings) *string { return &s.explainHTML }), ""},
	{"max-reversals", "reversals of two dependent commands run to find the critical pair (0: 6)", intFlag(func(s *settings) *int { return &s.maxReversals }), ""},
}

// pauseFlags are replay's --pause-at.
var pauseFlags = []flagDef{
	{"pause-at", "stop after step N with every session open, print how to look (psql, each actor's backend pid and transaction state), and wait for Enter (-1: no pause)", intFlag(func(s *settings) *int { return &s.pauseAt }), "ReplayOptions.PauseAt"},
}

// explainArtifact is `explain ARTIFACT`: what went wrong in the recorded
// failure and what would fix it.
func explainArtifact(ctx context.Context, sc engine.Scenario, rec *artifact.Artifact, path string, stdout io.Writer, s *settings) (int, error) {
	if s.explainHTML != "" {
		// Refuse before any work what could not be written at the end.
		if err := artifact.CheckWritable(s.explainHTML, s.opts.Output.Force); err != nil {
			return 0, usageError("--report: %v", err)
		}
	}
	x, err := engine.Explain(ctx, sc, rec, engine.ExplainOptions{Options: s.opts, MaxReversals: s.maxReversals})
	if x != nil && err == nil {
		if s.json {
			writeJSON(stdout, x)
		} else {
			PrintExplain(stdout, x)
		}
	}
	if err != nil {
		return 0, err
	}
	if out := s.opts.Output.Out; out != "" {
		data, _ := json.MarshalIndent(x, "", "  ")
		if err := artifact.WriteFileAtomic(out, append(data, '\n'), s.opts.Output.Force); err != nil {
			return 0, fmt.Errorf("write --out: %w", err)
		}
	}
	if s.explainHTML != "" {
		var buf bytes.Buffer
		if err := report.Render(&buf, rec, report.Options{ReplayCommand: report.ReplayCommand(rec, path), Explanation: x}); err != nil {
			return 0, err
		}
		if err := artifact.WriteFileAtomic(s.explainHTML, buf.Bytes(), s.opts.Output.Force); err != nil {
			return 0, fmt.Errorf("write --report: %w", err)
		}
	}
	return engine.ExitPass, nil
}

// PrintExplain prints an explanation for a terminal.
func PrintExplain(w io.Writer, x *explain.Explanation) {
	io.WriteString(w, "Failure: "+oneLine(x.Failure)+"\n")
	io.WriteString(w, x.Text())
}

package interleave

import (
	"io"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/report"
)

// RenderReport writes the artifact as one self-contained, offline HTML file
// (strict Content-Security-Policy, nothing from the artifact executed).
// replayCommand is the command shown to copy; empty derives one.
func RenderReport(w io.Writer, a *artifact.Artifact, replayCommand string) error {
	return report.Render(w, a, report.Options{ReplayCommand: replayCommand})
}

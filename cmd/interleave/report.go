package main

import (
	"bytes"
	"fmt"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/report"
	"github.com/spf13/cobra"
)

// reportCommand renders an artifact as one offline HTML page.
func reportCommand() *cobra.Command {
	var out, replay string
	var force, asJSON bool
	cmd := &cobra.Command{
		Use:   "report ARTIFACT --out FILE [--json]",
		Short: "Render an artifact as a self-contained HTML page (timeline, SQL, lock waits, environment)",
		Long: `Render an artifact as one self-contained HTML file that needs no network: the
outcome, a release-order timeline with one lane per actor, every unit's SQL,
parameters, command tags, SQLSTATE and lock waits, the environment and
fingerprint, and the command that replays it. The artifact is untrusted input:
it is validated first and shown only as text.`,
		Example: `  interleave report failure.json --out failure.html
  interleave report failure.json --out failure.html --force --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return fmt.Errorf("report: --out FILE is required")
			}
			// Refuse before any work what could not be written at the end.
			if err := artifact.CheckWritable(out, force); err != nil {
				return err
			}
			a, err := artifact.Read(args[0])
			if err != nil {
				return err
			}
			if replay == "" {
				replay = report.ReplayCommand(a, args[0])
			}
			var buf bytes.Buffer
			if err := report.Render(&buf, a, report.Options{ReplayCommand: replay}); err != nil {
				return err
			}
			if err := artifact.WriteFileAtomic(out, buf.Bytes(), force); err != nil {
				return err
			}
			if asJSON {
				return writeJSONOut(cmd.OutOrStdout(), ReportJSON{SchemaVersion: 1, Artifact: args[0], Out: out, Bytes: buf.Len(),
					Scenario: a.Scenario.Name, Outcome: a.Outcome.Kind, ReplayCommand: replay})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Wrote %s\n", out)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "the HTML file to write")
	cmd.Flags().BoolVar(&force, "force", false, "overwrite --out")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print what was written as JSON")
	cmd.Flags().StringVar(&replay, "replay-command", "", "the replay command to show (default: built from the scenario and the artifact's path)")
	return cmd
}

// ReportJSON is what `interleave report --json` prints
// (docs/json/report.v1.schema.json).
type ReportJSON struct {
	SchemaVersion int    `json:"schemaVersion"`
	Artifact      string `json:"artifact"`
	Out           string `json:"out"`
	Bytes         int    `json:"bytes"`
	Scenario      string `json:"scenario"`
	Outcome       string `json:"outcome"`
	ReplayCommand string `json:"replayCommand"`
}

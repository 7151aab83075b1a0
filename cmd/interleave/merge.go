package main

import (
	"fmt"

	"github.com/pginterleave/interleave/cmd/cli"
	"github.com/pginterleave/interleave/internal/termtext"
	"github.com/spf13/cobra"
)

// mergeCommand combines the summaries of a sharded search.
func mergeCommand() *cobra.Command {
	var out string
	var force, asJSON bool
	cmd := &cobra.Command{
		Use:   "merge SUMMARY...",
		Short: "Combine the summaries of the shards of one search (run with --shard K/N --summary FILE)",
		Example: `  interleave run ./examples/counter --shard 1/2 --summary s1.json --out f1.json   # machine 1
  interleave run ./examples/counter --shard 2/2 --summary s2.json --out f2.json   # machine 2
  interleave merge s1.json s2.json --out failure.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := cli.MergeSummaries(args)
			if err != nil {
				return err
			}
			s := m.Summary
			w := cmd.OutOrStdout()
			if asJSON {
				if err := writeJSONOut(w, s); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(w, "%s: %d shards merged; %d attempted, %d completed; violations: %d; %s.\n", termtext.Line(s.Scenario), max(s.Shards, 1)-len(m.Missing), s.Attempted, s.Completed, s.Violations, termtext.Line(s.Outcome))
				fmt.Fprintf(w, "Search: %s; pending prefixes: %d; maximum attempted depth: %d; every shard exhausted its part: %v.\n", termtext.Line(s.Strategy), s.Pending, s.MaxDepth, s.Exhausted && len(m.Missing) == 0)
				if s.Message != "" {
					fmt.Fprintln(w, termtext.Lines(s.Message))
				}
				if s.FirstFailure != nil {
					fmt.Fprintf(w, "First failure (exploration path %v): %s\n", s.FirstFailure.Path, termtext.Line(s.FirstFailure.Artifact))
				}
			}
			if out != "" && m.Artifact != "" {
				if err := cli.CopyArtifact(m.Artifact, out, force); err != nil {
					return err
				}
				if !asJSON {
					fmt.Fprintf(w, "Saved %s\n", termtext.Line(out))
				}
			}
			if s.ExitCode != 0 {
				return exitCode(s.ExitCode)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "copy the first failure's artifact here")
	cmd.Flags().BoolVar(&force, "force", false, "overwrite --out")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the merged summary as JSON")
	return cmd
}

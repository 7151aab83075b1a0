package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

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
			if err := checkSummaries(args); err != nil {
				return err
			}
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

// Bounds of the summaries merge reads: they are untrusted files, and a
// shard count sizes the list of shards that did not report (655 bytes
// saying "shards": 2147483647 made merge run out of memory; issue 19 item
// 3). maxShards is above the 100,000 completions of a Kubernetes indexed
// Job, the largest shard matrix we know of.
const (
	maxSummaryFile = 16 << 20
	maxShards      = 1 << 17
)

// checkSummaries refuses, before anything is merged, a summary file that
// is not a regular file, is over maxSummaryFile, or names a shard count
// over maxShards or a shard outside it. What else makes a file no summary
// MergeSummaries says.
func checkSummaries(paths []string) error {
	for _, p := range paths {
		if err := checkSummary(p); err != nil {
			return err
		}
	}
	return nil
}

func checkSummary(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file; name the summary files the shards wrote with --summary", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSummaryFile+1))
	if err != nil {
		return err
	}
	if len(data) > maxSummaryFile {
		return fmt.Errorf("%s is over %d MiB; it is not an Interleave summary (written with --summary or --json)", path, maxSummaryFile>>20)
	}
	var probe struct {
		Shard  int64 `json:"shard"`
		Shards int64 `json:"shards"`
	}
	if json.Unmarshal(data, &probe) != nil {
		return nil // MergeSummaries names what is wrong
	}
	if probe.Shards < 0 || probe.Shards > maxShards || probe.Shard < 0 || probe.Shard > max(probe.Shards, 1) {
		return fmt.Errorf("%s says it is shard %d of %d; a summary's shard count is from 1 to %d, and its shard one of them: it is not a summary of a sharded search (written with --shard K/N --summary FILE)", path, probe.Shard, probe.Shards, maxShards)
	}
	return nil
}

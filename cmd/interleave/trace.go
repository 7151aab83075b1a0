package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/capture"
	"github.com/pginterleave/interleave/capture/pcapng"
	"github.com/pginterleave/interleave/internal/termtext"
	"github.com/pginterleave/interleave/scenario"
	"github.com/spf13/cobra"
)

// traceCommand decodes an artifact's wire capture message by message, per
// connection and release unit, and can write it as pcapng for Wireshark.
func traceCommand() *cobra.Command {
	var asJSON, force, asSpec bool
	var pcapOut, specSetup string
	cmd := &cobra.Command{
		Use:   "trace ARTIFACT [--json] [--pcap FILE] [--force] [--spec [--spec-setup FILE]]",
		Short: "Show an artifact's wire capture message by message, per connection and release unit",
		Long: `Decodes the byte-exact wire capture an artifact keeps: per connection its start-up,
then every release unit with the client's messages (SQL, statement and portal names,
parameters) and the server's answer (columns, rows, command tags, errors, transaction
status), with the time of each in microseconds since the attempt started.
Authentication messages were never recorded; they show as [redacted: N bytes].

--pcap writes the capture as a pcapng file of synthesized TCP connections
(client 10.0.0.1, one port per connection from 40000; server 10.0.0.2:5432) that
Wireshark and tshark dissect as PostgreSQL.

--spec prints the recorded order as a PostgreSQL isolation-tester spec instead:
one session per actor connection, one step per command (bind parameters as
literals), the release order as its permutation; --spec-setup FILE puts that SQL
in its setup block. Run it with interleave run FILE.spec or pg_isolation_regress.`,
		Example: `  interleave trace failure.json
  interleave trace failure.json --json
  interleave trace failure.json --pcap failure.pcapng
  interleave trace failure.json --spec --spec-setup setup.sql > failure.spec`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if pcapOut != "" {
				// Refuse before any work; WriteFileAtomic checks again.
				if err := artifact.CheckWritable(pcapOut, force); err != nil {
					return err
				}
			}
			if capture.IsProxyFile(args[0]) {
				return traceProxyFile(cmd, args[0], asJSON, asSpec, pcapOut, force)
			}
			a, err := artifact.Read(args[0])
			if err != nil {
				return err
			}
			if asSpec {
				if asJSON {
					return fmt.Errorf("--spec prints an isolation-tester spec, which is text: drop --json or --spec")
				}
				return writeSpec(cmd, a, specSetup)
			}
			raw, err := artifactCapture(args[0], a)
			if err != nil {
				return err
			}
			units, conns := traceInputs(a)
			tr, err := capture.Trace(raw, units, conns)
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			w := cmd.OutOrStdout()
			if asJSON {
				if err := writeJSONOut(w, TraceJSON{SchemaVersion: 1, TraceResult: tr}); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(w, "%s: scenario %s, %s (%s); times in µs since the attempt started\n\n", termtext.Line(args[0]), termtext.Line(a.Scenario.Name), termtext.Line(a.Mode), a.Outcome.Kind)
				if err := tr.WriteText(w); err != nil {
					return err
				}
			}
			if pcapOut != "" {
				var buf bytes.Buffer
				if err := pcapng.Write(&buf, raw); err != nil {
					return fmt.Errorf("%s: %w", args[0], err)
				}
				if err := artifact.WriteFileAtomic(pcapOut, buf.Bytes(), force); err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "Wrote %s (open it with wireshark, or: tshark -r %s -d tcp.port==5432,pgsql)\n", pcapOut, pcapOut)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the trace as JSON")
	cmd.Flags().StringVar(&pcapOut, "pcap", "", "also write the capture as a pcapng file")
	cmd.Flags().BoolVar(&force, "force", false, "overwrite the --pcap file")
	cmd.Flags().BoolVar(&asSpec, "spec", false, "print the recorded order as an isolation-tester spec")
	cmd.Flags().StringVar(&specSetup, "spec-setup", "", "with --spec: a file whose SQL goes in the spec's setup block")
	return cmd
}

// writeSpec prints a's order as an isolation-tester spec on stdout and what
// it could not carry on stderr.
func writeSpec(cmd *cobra.Command, a *artifact.Artifact, setupFile string) error {
	var setup string
	if setupFile != "" {
		b, err := os.ReadFile(setupFile)
		if err != nil {
			return err
		}
		setup = string(b)
	}
	spec, notes := scenario.SpecFromArtifact(a, setup)
	fmt.Fprint(cmd.OutOrStdout(), spec)
	for _, n := range notes {
		fmt.Fprintf(cmd.ErrOrStderr(), "note: %s\n", termtext.Line(n))
	}
	return nil
}

// errNoCapture: the artifact was recorded without its wire capture.
var errNoCapture = errors.New("has no wire capture: run with --capture all, or keep a failing attempt (the default --capture failures keeps the capture of failing attempts)")

// artifactCapture decompresses and checks a's capture.
func artifactCapture(path string, a *artifact.Artifact) ([]byte, error) {
	c := a.Capture
	if c == nil {
		return nil, fmt.Errorf("%s %w", path, errNoCapture)
	}
	raw, err := c.Bytes()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return raw, nil
}

// traceInputs converts an artifact's units and connections for
// capture.Trace: the capture numbers actors by their position in the
// scenario.
func traceInputs(a *artifact.Artifact) ([]capture.UnitInfo, []capture.ConnInfo) {
	index := make(map[string]int, len(a.Scenario.Actors))
	for i, n := range a.Scenario.Actors {
		index[n] = i
	}
	units := make([]capture.UnitInfo, 0, len(a.Units))
	for _, u := range a.Units {
		units = append(units, capture.UnitInfo{Actor: u.Actor, Conn: u.Conn, Unit: u.Unit, Hash: u.Hash, ReleaseStep: u.ReleaseStep, SQL: u.SQL, Fault: u.Fault})
	}
	conns := make([]capture.ConnInfo, 0, len(a.Connections))
	for _, c := range a.Connections {
		i, ok := index[c.Actor]
		if !ok {
			continue // Validate refuses this; never map it to actor 0
		}
		conns = append(conns, capture.ConnInfo{Actor: c.Actor, ActorIndex: i, Conn: c.Conn, Stream: c.Stream})
	}
	return units, conns
}

// TraceJSON is what `interleave trace --json` prints: capture.Trace's
// result with a schema version (docs/json/trace.v1.schema.json).
type TraceJSON struct {
	SchemaVersion int `json:"schemaVersion"`
	*capture.TraceResult
}

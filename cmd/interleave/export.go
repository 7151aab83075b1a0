package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pginterleave/interleave/export"
	"github.com/pginterleave/interleave/internal/termtext"
	"github.com/pginterleave/interleave/scenario"
	"github.com/spf13/cobra"
)

// exportCommand builds an offline regression bundle, or verifies one.
func exportCommand() *cobra.Command {
	var out, verify string
	var force, asJSON bool
	cmd := &cobra.Command{
		Use:   "export DIR|FILE ARTIFACT --out BUNDLE | export --verify BUNDLE",
		Short: "Package a failure as an offline regression bundle (sources vendored, binary, replay script, manifest)",
		Example: `  interleave export ./examples/counter failure.json --out bundle/
  cd bundle && ./replay
  interleave export --verify bundle/ --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			if verify != "" {
				problems, err := export.Verify(verify)
				if err != nil {
					return err
				}
				res := ExportJSON{SchemaVersion: 1, Mode: "verify", Bundle: verify, OK: len(problems) == 0, Problems: []ExportProblem{}}
				for _, p := range problems {
					res.Problems = append(res.Problems, ExportProblem{Path: p.Path, What: p.What})
				}
				if !res.OK {
					res.ExitCode = 2
				}
				if asJSON {
					if err := writeJSONOut(w, res); err != nil {
						return err
					}
				} else {
					for _, p := range problems {
						fmt.Fprintf(w, "- %s: %s\n", termtext.Line(p.Path), termtext.Line(p.What))
					}
					if res.OK {
						fmt.Fprintf(w, "%s: every file matches %s; the artifact is valid.\n", termtext.Line(verify), export.ManifestName)
					} else {
						fmt.Fprintf(w, "%s does not match its manifest (%d problems).\n", termtext.Line(verify), len(problems))
					}
				}
				if !res.OK {
					return exitCode(2)
				}
				return nil
			}
			if len(args) != 2 || out == "" {
				return fmt.Errorf("usage: interleave export DIR ARTIFACT --out BUNDLE (or --verify BUNDLE)")
			}
			var err error
			if isScenarioFile(args[0]) {
				err = exportScenarioFile(args[0], args[1], out, force)
			} else {
				err = export.Bundle(context.Background(), export.Options{ProgramDir: args[0], Artifact: args[1], Out: out, Force: force, Log: os.Stderr})
			}
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSONOut(w, ExportJSON{SchemaVersion: 1, Mode: "bundle", Bundle: out, OK: true, Artifact: args[1], Replay: "cd " + shellQuote(out) + " && ./replay"})
			}
			fmt.Fprintf(w, "Wrote the bundle %s; replay it with: cd %q && ./replay\n", out, out)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "the bundle directory to create")
	cmd.Flags().StringVar(&verify, "verify", "", "check a bundle against its manifest without running anything")
	cmd.Flags().BoolVar(&force, "force", false, "replace --out if it exists")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the bundle written, or the verification, as JSON")
	return cmd
}

// ExportJSON is what `interleave export --json` prints for a bundle written
// (mode bundle) or checked (mode verify) (docs/json/export.v1.schema.json).
type ExportJSON struct {
	SchemaVersion int             `json:"schemaVersion"`
	Mode          string          `json:"mode"`
	Bundle        string          `json:"bundle"`
	OK            bool            `json:"ok"`
	ExitCode      int             `json:"exitCode"`
	Artifact      string          `json:"artifact,omitempty"`
	Replay        string          `json:"replay,omitempty"`
	Problems      []ExportProblem `json:"problems,omitempty"`
}

// ExportProblem is a file of a bundle that does not match its manifest.
type ExportProblem struct {
	Path string `json:"path"`
	What string `json:"what"`
}

// exportScenarioFile bundles a scenario file (YAML or JavaScript) with this
// interleave binary: loading it names the files its fingerprint covers.
func exportScenarioFile(file, art, out string, force bool) error {
	if strings.EqualFold(filepath.Ext(file), ".spec") {
		return fmt.Errorf("%s is an isolation-tester spec: it has no recorded order to replay; keep the spec and its expected output instead", file)
	}
	load := scenario.LoadFile
	if scenario.IsJSFile(file) {
		load = scenario.LoadJS
	}
	loaded, err := load(file)
	if err != nil {
		return err
	}
	defer loaded.Close()
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the interleave binary to bundle: %w", err)
	}
	src := loaded.Options.Source
	return export.BundleFile(context.Background(), export.FileOptions{
		Scenario: file, Files: src.Files, Root: src.Root, Interleave: self,
		Artifact: art, Out: out, Force: force,
		Log: func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) },
	})
}

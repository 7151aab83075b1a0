package main

import (
	"context"
	"fmt"
	"os"

	"github.com/pginterleave/interleave/export"
	"github.com/pginterleave/interleave/internal/termtext"
	"github.com/spf13/cobra"
)

// exportCommand builds an offline regression bundle, or verifies one.
func exportCommand() *cobra.Command {
	var out, verify string
	var force bool
	cmd := &cobra.Command{
		Use:   "export DIR ARTIFACT --out BUNDLE | export --verify BUNDLE",
		Short: "Package a failure as an offline regression bundle (sources vendored, binary, replay script, manifest)",
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			if verify != "" {
				problems, err := export.Verify(verify)
				if err != nil {
					return err
				}
				for _, p := range problems {
					fmt.Fprintf(w, "- %s: %s\n", termtext.Line(p.Path), termtext.Line(p.What))
				}
				if len(problems) > 0 {
					fmt.Fprintf(w, "%s does not match its manifest (%d problems).\n", verify, len(problems))
					return exitCode(2)
				}
				fmt.Fprintf(w, "%s: every file matches %s; the artifact is valid.\n", verify, export.ManifestName)
				return nil
			}
			if len(args) != 2 || out == "" {
				return fmt.Errorf("usage: interleave export DIR ARTIFACT --out BUNDLE (or --verify BUNDLE)")
			}
			err := export.Bundle(context.Background(), export.Options{ProgramDir: args[0], Artifact: args[1], Out: out, Force: force, Log: os.Stderr})
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "Wrote the bundle %s; replay it with: cd %q && ./replay\n", out, out)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "the bundle directory to create")
	cmd.Flags().StringVar(&verify, "verify", "", "check a bundle against its manifest without running anything")
	cmd.Flags().BoolVar(&force, "force", false, "replace --out if it exists")
	return cmd
}

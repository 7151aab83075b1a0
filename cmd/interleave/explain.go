package main

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/cmd/cli"
	"github.com/spf13/cobra"
)

const explainUsage = "interleave explain [DIR] ARTIFACT [flags]"

// explainCommand is `interleave explain [DIR] ARTIFACT`: it builds the
// scenario program (DIR, or the program the artifact names) and has it
// explain the recorded failure: the anomaly by name, the critical pair and
// the isolation level that stops it, each shown by running the order.
func explainCommand() *cobra.Command {
	long := `Say what went wrong in a recorded failure and what would fix it: the dependency
cycle between its transactions and the anomaly's name (lost update, write skew,
read skew, phantom, read-only anomaly; Adya's G-single, G2-item, G2), or "no
dependency cycle between transactions"; the critical pair of commands whose
reversal makes the order pass (found by running reversals); and the same order
run with every actor's sessions at REPEATABLE READ and at SERIALIZABLE (a
start-up option, no code changed), actors that fail with 40001 or 40P01 run
again, which shows whether a stronger level is the fix.

DIR is the scenario program (or scenario file) that recorded ARTIFACT; left
out, it is the program the artifact names, relative to the current directory.
Exit 0 once explained, 2 when it cannot be.
`
	help := func(c *cobra.Command) {
		fmt.Fprintf(c.OutOrStdout(), "%s\nUsage:\n  %s\n\nExamples:\n%s\nFlags:\n%s", long, explainUsage, explainExamples, cli.Usage("explain", interleave.Options{}))
	}
	cmd := &cobra.Command{
		Use:                "explain [DIR] ARTIFACT [flags]",
		Short:              "Name the anomaly behind a recorded failure, its critical pair and the isolation level that stops it",
		Long:               long,
		Example:            explainExamples,
		DisableFlagParsing: true,
		RunE: func(c *cobra.Command, args []string) error {
			if wantsHelp(args) {
				help(c)
				return nil
			}
			pos, at, err := cli.ParseArgs("explain", args, explainUsage)
			if err != nil {
				return err
			}
			var dir, art string
			rest := args
			switch len(pos) {
			case 0:
				return &cli.UsageError{Msg: "explain needs ARTIFACT, the recorded failure (a JSON file written with --out)", Usage: explainUsage}
			case 1:
				art = pos[0]
				rec, err := artifact.Read(art)
				if err != nil {
					return fmt.Errorf("%w; it cannot be explained", err)
				}
				dir = rec.Scenario.Program
				if dir == "" {
					return &cli.UsageError{Msg: fmt.Sprintf("%s does not name the scenario program that recorded it: give it, interleave explain DIR %s", art, art), Usage: explainUsage}
				}
				if _, err := os.Stat(dir); err != nil {
					return &cli.UsageError{Msg: fmt.Sprintf("%s was recorded by %s, which is not here (%s): run from the directory it is relative to, or give it, interleave explain DIR %s", art, dir, filepath.Base(dir), art), Usage: explainUsage}
				}
			case 2:
				dir, art = pos[0], pos[1]
				rest = append(append([]string{}, args[:at[0]]...), args[at[0]+1:]...)
			default:
				return &cli.UsageError{Msg: fmt.Sprintf("explain takes [DIR] ARTIFACT; got %d arguments: %s", len(pos), quoteArgs(pos)), Usage: explainUsage}
			}
			if file, err := scenarioFileIn(dir, explainUsage); err != nil {
				return err
			} else if file != "" {
				dir = file
			}
			if isScenarioFile(dir) {
				return exitCode(runScenarioFile("explain", dir, rest))
			}
			sigs := make(chan os.Signal, 2)
			signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
			defer signal.Stop(sigs)
			bin, cleanup, err := buildProgram(dir, sigs)
			if err != nil {
				return err
			}
			defer cleanup()
			env, stop, err := dockerForChild(c.Context(), rest)
			if err != nil {
				return err
			}
			defer stop()
			return exitCode(runChild(bin, append([]string{"explain"}, rest...), dir, env, sigs))
		},
	}
	cmd.SetHelpFunc(func(c *cobra.Command, _ []string) { help(c) })
	return cmd
}

const explainExamples = `  interleave explain failure.json
  interleave explain ./examples/counter failure.json --json
  interleave explain scenario.yaml failure.json
`

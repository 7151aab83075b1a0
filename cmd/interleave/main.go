// Command interleave reproduces race conditions in PostgreSQL application
// code. It builds and runs scenario programs (main packages that call
// interleave.Main), replays and minimizes their artifacts, and runs a
// built-in demo.
//
//	interleave demo
//	interleave run ./examples/counter --out failure.json
//	interleave replay ./examples/counter failure.json
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/pginterleave/interleave/cmd/cli"
	"github.com/spf13/cobra"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

// exitCode carries a process exit code out of a cobra command.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit %d", int(e)) }

func run(args []string) int {
	root := newRoot()
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return 0
	}
	if c, ok := err.(exitCode); ok {
		return int(c)
	}
	code := reportError(err, args, os.Stdout, os.Stderr)
	var ue *cli.UsageError
	if errors.As(err, &ue) && ue.Usage != "" {
		// One error line, then the usage line: not the whole help.
		fmt.Fprintf(os.Stderr, "Usage: %s\n", ue.Usage)
	}
	return code
}

// newRoot is the interleave command with every subcommand.
func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "interleave",
		Short:         "Find, replay and keep the order of SQL commands that breaks your data",
		SilenceUsage:  true,
		SilenceErrors: true,
		Long: `Interleave runs your real operations against a real PostgreSQL server through a
wire-protocol proxy per actor, decides the order in which their commands reach the
server, and searches for the order that breaks a stated invariant.

Exit codes: 0 pass, 1 violation, 2 usage/actor/harness error, 3 incompatible replay,
4 inconclusive or budget spent, 128+N after signal N.
The words the output uses are explained by: interleave help terms`,
		Example: `  interleave init likes && cd likes && go mod tidy && interleave run .
  interleave demo
  interleave run ./examples/counter --out failure.json
  interleave replay ./examples/counter failure.json
  interleave doctor`,
	}
	root.AddCommand(
		programCommand("run", "run DIR [flags]", "Build the scenario program in DIR and search for a violating order", 1),
		programCommand("replay", "replay DIR ARTIFACT [flags]", "Replay a recorded failure against the scenario program in DIR", 2),
		programCommand("minimize", "minimize DIR ARTIFACT [flags]", "Reduce a failing schedule to the fewest choices that still fail", 2),
		explainCommand(),
		demoCommand(),
		doctorCommand(),
		mergeCommand(),
		exportCommand(),
		reportCommand(),
		traceCommand(),
		cleanCommand(),
		postgresCommand(),
		versionCommand(),
		initCommand(),
		termsTopic(),
		proxyCommand(),
	)
	uniformUsageErrors(root)
	root.Version = buildVersion().text()
	root.SetVersionTemplate("{{.Version}}")
	addCompletionExamples(root)
	return root
}

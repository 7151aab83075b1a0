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
	"fmt"
	"os"

	"github.com/pginterleave/interleave/internal/termtext"
	"github.com/spf13/cobra"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

// exitCode carries a process exit code out of a cobra command.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit %d", int(e)) }

func run(args []string) int {
	root := &cobra.Command{
		Use:           "interleave",
		Short:         "Find, replay and keep the order of SQL commands that breaks your data",
		SilenceUsage:  true,
		SilenceErrors: true,
		Long: `Interleave runs your real operations against a real PostgreSQL server through a
wire-protocol proxy per actor, decides the order in which their commands reach the
server, and searches for the order that breaks a stated invariant.

Exit codes: 0 pass, 1 violation, 2 usage/actor/harness error, 3 incompatible replay,
4 inconclusive or budget spent, 128+N after signal N.`,
	}
	root.AddCommand(
		programCommand("run", "run DIR [flags]", "Build the scenario program in DIR and search for a violating order", 1),
		programCommand("replay", "replay DIR ARTIFACT [flags]", "Replay a recorded failure against the scenario program in DIR", 2),
		programCommand("minimize", "minimize DIR ARTIFACT [flags]", "Reduce a failing schedule to the fewest choices that still fail", 2),
		demoCommand(),
		doctorCommand(),
		mergeCommand(),
		exportCommand(),
		reportCommand(),
		traceCommand(),
		cleanCommand(),
		postgresCommand(),
	)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return 0
	}
	if c, ok := err.(exitCode); ok {
		return int(c)
	}
	// Errors quote artifacts, actors' output and the server: never let them
	// drive the terminal.
	fmt.Fprintf(os.Stderr, "interleave: %s\n", termtext.Lines(err.Error()))
	return 2
}

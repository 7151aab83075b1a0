package interleave

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/pginterleave/interleave/artifact"
	"github.com/spf13/cobra"
)

// addReplayCommands registers replay and minimize.
func addReplayCommands(ctx context.Context, root *cobra.Command, stdout io.Writer, scenarios []Scenario, code *int, base Options) {
	ro := ReplayOptions{Options: base}
	replay := artifactCommand(ctx, "replay ARTIFACT", "Replay a recorded failure in its recorded order (exact, or --guided against changed code)",
		stdout, scenarios, code, func(sc Scenario, rec *artifact.Artifact, path string) (printedResult, error) {
			ro.Source = path
			res, err := Replay(ctx, sc, rec, ro)
			if res == nil {
				return nil, err
			}
			return res, err
		})
	bindOptions(replay, &ro.Options)
	replay.Flags().BoolVar(&ro.Guided, "guided", false, "follow the recorded order of actors against changed code, then the default order")
	replay.Flags().IntVar(&ro.Repeat, "repeat", 1, "replay up to N times until the recorded failure recurs (for recordings with pair releases)")
	root.AddCommand(replay)

	mo := MinimizeOptions{Options: base}
	minimize := artifactCommand(ctx, "minimize ARTIFACT", "Remove choices from a failing schedule while the same failure still happens",
		stdout, scenarios, code, func(sc Scenario, rec *artifact.Artifact, path string) (printedResult, error) {
			mo.Source = path
			res, err := Minimize(ctx, sc, rec, mo)
			if res == nil {
				return nil, err
			}
			return res, err
		})
	bindOptions(minimize, &mo.Options)
	minimize.Flags().IntVar(&mo.MaxAttempts, "max-attempts", 0, "stop after this many attempts (0: no limit)")
	minimize.Flags().DurationVar(&mo.MaxTime, "max-time", 0*time.Second, "stop after this long (0: no limit)")
	root.AddCommand(minimize)
}

// printedResult is what replay and minimize produce.
type printedResult interface {
	Print(io.Writer)
	ExitCode() int
}

// artifactCommand is a command that loads an artifact, finds its scenario
// and runs fn on them, printing the result and keeping its exit code.
func artifactCommand(ctx context.Context, use, short string, stdout io.Writer, scenarios []Scenario, code *int,
	fn func(Scenario, *artifact.Artifact, string) (printedResult, error)) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rec, sc, err := loadForReplay(args[0], scenarios)
			if err != nil {
				return err
			}
			res, err := fn(sc, rec, args[0])
			if res != nil {
				res.Print(stdout)
			}
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				return &codeError{ExitError, err}
			}
			*code = res.ExitCode()
			return nil
		},
	}
}

// loadForReplay reads an artifact (untrusted input) and finds its scenario.
func loadForReplay(path string, scenarios []Scenario) (*artifact.Artifact, Scenario, error) {
	rec, err := artifact.Read(path)
	if err != nil {
		if errors.Is(err, artifact.ErrInvalid) {
			return nil, Scenario{}, &codeError{ExitError, fmt.Errorf("%w; it cannot be replayed", err)}
		}
		return nil, Scenario{}, &codeError{ExitError, err}
	}
	for _, s := range scenarios {
		if s.Name == rec.Scenario.Name {
			return rec, s, nil
		}
	}
	return nil, Scenario{}, &codeError{ExitIncompatible, fmt.Errorf("%s records scenario %q, which this program does not define", path, rec.Scenario.Name)}
}

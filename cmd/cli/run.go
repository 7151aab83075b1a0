package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/engine"
	"github.com/pginterleave/interleave/internal/termtext"
	"github.com/pginterleave/interleave/pgserver"
	"github.com/pginterleave/interleave/search"
	"github.com/pginterleave/interleave/supervise"
)

// Program is a command line over scenarios: what interleave.Main runs in a
// scenario program, and what the interleave command runs in-process for
// scenario files and its demo.
type Program struct {
	Scenarios []engine.Scenario
	// Defaults are the options the flags start from: where the scenario's
	// sources are, and a scenario file's options block. Flags win.
	Defaults engine.Options
	// Docker, when set, provides --docker in this process. A scenario
	// program leaves it nil: the interleave command, which links the Docker
	// client, starts the container and passes its URL in
	// $INTERLEAVE_DOCKER_SERVER_URL.
	Docker func(image string) pgserver.Provider
	// Close, when set, runs after the command (stop helper processes).
	Close func()
}

// DockerServerEnv carries the URL of a container the interleave command
// started for --docker to the scenario program it runs.
const DockerServerEnv = "INTERLEAVE_DOCKER_SERVER_URL"

// exitError carries an exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageError(format string, args ...any) error {
	return &exitError{engine.ExitError, fmt.Errorf(format, args...)}
}

// Run parses args (a command and its flags), runs it and returns the exit
// code: 0 pass, 1 violation, 2 usage/actor/harness error, 3 incompatible
// replay, 4 inconclusive or budget spent, 128+N after signal N (after
// cleanup). SIGINT and SIGTERM stop the run and clean up; a second one
// exits at once.
func Run(args []string, stdout, stderr io.Writer, p Program) int {
	if p.Close != nil {
		defer p.Close()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var sig atomic.Int32
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	supervise.NotifyParentExit(sigs) // started by `interleave run`: its death is a hangup
	defer signal.Stop(sigs)
	go func() {
		for s := range sigs {
			n := int32(s.(syscall.Signal))
			if !sig.CompareAndSwap(0, n) {
				fmt.Fprintf(stderr, "interleave: second %v: exiting without finishing cleanup\n", s)
				os.Exit(128 + int(n))
			}
			fmt.Fprintf(stderr, "interleave: %v received: stopping and cleaning up (press Ctrl+C again to exit at once)\n", s)
			cancel()
		}
	}()

	jsonOut := false
	code, err := dispatch(ctx, args, stdout, stderr, p, &jsonOut)
	if n := sig.Load(); n != 0 {
		msg := "interrupted; the server, its databases and temporary files were removed"
		if jsonOut {
			writeJSON(stdout, errorJSON{SchemaVersion: 1, Error: msg, ExitCode: 128 + int(n)})
		}
		fmt.Fprintf(stderr, "interleave: %s.\n", msg)
		return 128 + int(n)
	}
	if err != nil {
		code = engine.ExitError
		var ee *exitError
		if errors.As(err, &ee) {
			code = ee.code
		}
		msg := describeError(err)
		if jsonOut {
			writeJSON(stdout, errorJSON{SchemaVersion: 1, Error: msg, ExitCode: code})
		}
		fmt.Fprintf(stderr, "interleave: %s\n", msg)
		var ue *UsageError
		if errors.As(err, &ue) && ue.Usage != "" {
			fmt.Fprintf(stderr, "Usage: %s\n", ue.Usage)
		}
	}
	return code
}

// describeError is err in one sentence, with the library's option names
// mapped to the flags that set them.
func describeError(err error) string {
	var oe *engine.OptionError
	if errors.As(err, &oe) {
		if f := flagForOption(oe.Field); f != "" {
			return escapeControls(f + " " + oe.Msg + ".")
		}
	}
	s := Flagged(strings.TrimSpace(err.Error()))
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "?") {
		s += "."
	}
	return oneLineKeepBreaks(s)
}

func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer, p Program, jsonOut *bool) (int, error) {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintf(stdout, programHelp, filepath.Base(os.Args[0]))
		if len(args) == 0 {
			return engine.ExitError, nil
		}
		return engine.ExitPass, nil
	}
	command, rest := args[0], args[1:]
	switch command {
	case "list":
		for _, s := range p.Scenarios {
			fmt.Fprintf(stdout, "%s\t%d actors: %s\n", oneLine(s.Name), len(s.Actors), strings.Join(s.ActorNames(), ", "))
		}
		return engine.ExitPass, nil
	case "run", "replay", "minimize", "explain":
	default:
		return 0, usageError("unknown command %q; the commands are run, replay, minimize, explain and list", command)
	}
	s := newSettings(p.Defaults)
	fs := flagSet(command, s)
	for _, a := range rest {
		if a == "--" {
			break
		}
		if a == "--json" || a == "-json" || a == "--json=true" {
			*jsonOut = true // errors in parsing are JSON too
		}
	}
	usage := usageLine(filepath.Base(os.Args[0]), command)
	args, _, err := parseInterspersedAt(fs, rest)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stdout, "Usage:\n  %s\n\nFlags:\n%s", usage, Usage(command, p.Defaults))
			return engine.ExitPass, nil
		}
		return 0, &exitError{engine.ExitError, &UsageError{FlagError(err, rest, FlagNames(command)), usage}}
	}
	*jsonOut = s.json
	if err := explicitZeros(fs); err != nil {
		return 0, withUsage(err, usage)
	}
	if err := emptyValues(fs); err != nil {
		return 0, withUsage(err, usage)
	}
	switch {
	case command == "run" && len(args) > 0:
		return 0, withUsage(usageError("run takes no arguments, only flags; got %q", oneLine(args[0])), usage)
	case command != "run" && len(args) == 0:
		return 0, withUsage(usageError("%s needs ARTIFACT, the recorded failure (a JSON file written with --out)", command), usage)
	case command != "run" && len(args) > 1:
		return 0, withUsage(usageError("%s takes one ARTIFACT; got %d arguments", command, len(args)), usage)
	}
	if err := s.resolveServer(p); err != nil {
		return 0, err
	}
	switch command {
	case "run":
		return runCommand(ctx, stdout, stderr, p, s)
	default:
		return artifactCommand(ctx, command, args[0], stdout, p, s)
	}
}

var positional = map[string]string{"run": "[flags]", "replay": "ARTIFACT [flags]", "minimize": "ARTIFACT [flags]", "explain": "ARTIFACT [flags]"}

// withUsage adds the usage line to a usage error.
func withUsage(err error, usage string) error {
	var ee *exitError
	if errors.As(err, &ee) {
		return &exitError{ee.code, &UsageError{ee.err.Error(), usage}}
	}
	return &exitError{engine.ExitError, &UsageError{err.Error(), usage}}
}

const programHelp = `Usage: %s COMMAND [flags]

Commands:
  run                 search the orders of the scenario's commands for one that breaks its invariant
  replay ARTIFACT     replay a recorded failure in its recorded order (exact, or --guided against changed code)
  minimize ARTIFACT   remove choices from a failing schedule while the same failure still happens
  explain ARTIFACT    name the anomaly, find the critical pair and the isolation level that stops it
  list                list the scenarios

Run COMMAND --help for its flags. Exit codes: 0 pass, 1 violation, 2 usage/actor/harness
error, 3 incompatible replay, 4 inconclusive or budget spent, 128+N after signal N.
`

// resolveServer turns --docker into a server provider.
func (s *settings) resolveServer(p Program) error {
	if !s.docker {
		return nil
	}
	if p.Docker != nil {
		s.opts.Server.Provider = p.Docker(s.dockerImage)
		return nil
	}
	if u := os.Getenv(DockerServerEnv); u != "" {
		s.opts.Server.DatabaseURL = u
		return nil
	}
	return usageError("--docker is provided by the interleave command, which starts the container: run `interleave run DIR --docker` (a scenario program does not link the Docker client)")
}

func (s *settings) pickScenario(p Program) ([]engine.Scenario, error) {
	if len(p.Scenarios) == 0 {
		return nil, usageError("this program defines no scenarios; pass them to interleave.Main")
	}
	if s.scenario == "" {
		return p.Scenarios, nil
	}
	for _, sc := range p.Scenarios {
		if sc.Name == s.scenario {
			return []engine.Scenario{sc}, nil
		}
	}
	var names []string
	for _, sc := range p.Scenarios {
		names = append(names, sc.Name)
	}
	return nil, usageError("no scenario named %q (this program has: %s)", s.scenario, strings.Join(names, ", "))
}

func runCommand(ctx context.Context, stdout, stderr io.Writer, p Program, s *settings) (int, error) {
	list, err := s.pickScenario(p)
	if err != nil {
		return 0, err
	}
	if len(list) > 1 && (s.opts.Output.Out != "" || s.summary != "" || s.json || s.plan != "") {
		return 0, usageError("--out, --summary, --plan and --json need --scenario NAME when the program has several scenarios")
	}
	// Counts whose 0 means none on the command line, and negative in
	// Options (where 0 is the default).
	for _, c := range []struct {
		flag string
		n    int
		opt  *int
	}{{"reduction-check", s.reductionCheck, &s.opts.Search.ReductionCheck}, {"critical-pair", s.criticalPair, &s.opts.Output.Reversals}} {
		switch {
		case c.n < 0:
			return 0, usageError("--%s is %d; it must be 0 (none) or more", c.flag, c.n)
		case c.n == 0:
			*c.opt = -1
		default:
			*c.opt = c.n
		}
	}
	if s.shard != "" {
		if s.opts.Search.Shard, s.opts.Search.Shards, err = ParseShard(s.shard); err != nil {
			return 0, usageError("%v", err)
		}
	}
	if s.summary != "" {
		if err := artifact.CheckWritable(s.summary, true); err != nil {
			return 0, usageError("--summary: %v", err)
		}
	}
	if s.plan != "" {
		if s.opts.Search.Order, err = readPlan(s.plan, list[0]); err != nil {
			return 0, usageError("--plan: %v", err)
		}
	}
	progress := newProgressLine(stderr, s.progress && !s.json, s.opts.Output.OnProgress)
	s.opts.Output.OnProgress = progress.update
	worst := engine.ExitPass
	for _, sc := range list {
		var res *engine.Result
		var err error
		if s.plan != "" {
			res, err = engine.RunOnce(ctx, sc, s.opts)
			if res != nil {
				res.Message = planMessage(res.Message)
			}
		} else {
			res, err = engine.Explore(ctx, sc, s.opts)
		}
		progress.finish()
		if res != nil {
			if s.json {
				writeJSON(stdout, Summarize(res))
			} else {
				PrintExplore(stdout, res)
			}
			if s.summary != "" && res.Summary != nil {
				data, _ := json.MarshalIndent(Summarize(res), "", "  ")
				if werr := artifact.WriteFileAtomic(s.summary, append(data, '\n'), true); werr != nil {
					return 0, fmt.Errorf("write --summary: %w", werr)
				}
			}
		}
		if err != nil {
			return 0, err
		}
		if sum := res.Summary; sum != nil && sum.StopReason == search.StopHarness && sum.StopErr != nil && !s.json {
			// An error, so on stderr too, where scripts and CI look.
			fmt.Fprintf(stderr, "interleave: the search was stopped after %d attempts by a harness error: %s\n", sum.Attempted, termtext.Lines(sum.StopErr.Error()))
		}
		worst = worse(worst, res.ExitCode())
	}
	return worst, nil
}

func artifactCommand(ctx context.Context, command, path string, stdout io.Writer, p Program, s *settings) (int, error) {
	rec, err := artifact.Read(path)
	if err != nil {
		return 0, fmt.Errorf("%w; it cannot be %sed", err, strings.TrimSuffix(command, "e"))
	}
	var sc *engine.Scenario
	for i := range p.Scenarios {
		if p.Scenarios[i].Name == rec.Scenario.Name {
			sc = &p.Scenarios[i]
		}
	}
	if sc == nil {
		return 0, &exitError{engine.ExitIncompatible, fmt.Errorf("%s records scenario %q, which this program does not define (a repaired scenario must keep its Name)", path, rec.Scenario.Name)}
	}
	if command == "explain" {
		return explainArtifact(ctx, *sc, rec, path, stdout, s)
	}
	if command == "replay" {
		res, err := engine.Replay(ctx, *sc, rec, engine.ReplayOptions{Options: s.opts, Guided: s.guided, Repeat: s.repeat, Source: path, PauseAt: s.pauseAt, OnPause: pauseHook(stdout, s)})
		if res != nil {
			if s.json {
				writeJSON(stdout, replayJSON(res))
			} else {
				PrintReplay(stdout, res)
			}
		}
		if err != nil {
			return 0, err
		}
		return res.ExitCode(), nil
	}
	res, err := engine.Minimize(ctx, *sc, rec, engine.MinimizeOptions{Options: s.opts, MaxAttempts: s.minAttempts, MaxTime: s.minTime, Source: path})
	if res != nil {
		if s.json {
			writeJSON(stdout, minimizeJSON(res))
		} else {
			PrintMinimize(stdout, res)
		}
	}
	if err != nil {
		return 0, err
	}
	return res.ExitCode(), nil
}

// writeJSON prints v indented, with C1 controls and format characters
// (bidirectional overrides among them) escaped as \uXXXX, as every --json
// output does (artifact.EscapeJSONText).
func writeJSON(w io.Writer, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return
	}
	_, _ = w.Write(artifact.EscapeJSONText(buf.Bytes()))
}

// explicitZeros refuses a zero given on the command line where zero only
// means "the default" in the library: --attempt-timeout 0 is not 30
// seconds by intent. --workers 0 is allowed: one per CPU is what its help
// says 0 means.
func explicitZeros(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "attempt-timeout", "repeat", "max-message", "frontier-bytes":
			if v := f.Value.String(); v == "0" || v == "0s" {
				def := f.DefValue
				switch f.Name {
				case "max-message":
					def = "256 MiB"
				case "frontier-bytes":
					def = "256 MiB"
				}
				err = usageError("--%s must be more than 0 (leave it out for the default: %s)", f.Name, def)
			}
		}
	})
	return err
}

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/cmd/cli"
	"github.com/pginterleave/interleave/internal/termtext"
	"github.com/pginterleave/interleave/scenario"
	"github.com/pginterleave/interleave/supervise"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// programCommand builds the scenario program named by the first argument and
// runs it with the subcommand and the remaining arguments.
func programCommand(name, use, short string, positional int) *cobra.Command {
	usage := "interleave " + use
	long := short + ".\n\n" + programHelp[name]
	help := func(w io.Writer) {
		// The layout of every other command's help (cobra's): description,
		// usage, examples, flags.
		fmt.Fprintf(w, "%s\nUsage:\n  %s\n\nExamples:\n%s\nFlags:\n%s", long, usage, programExamples[name], cli.Usage(name, interleave.Options{}))
	}
	cmd := &cobra.Command{
		Use:                use,
		Short:              short,
		Long:               long,
		Example:            programExamples[name],
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if wantsHelp(args) {
				help(cmd.OutOrStdout())
				return nil
			}
			if len(args) > 0 && strings.EqualFold(filepath.Ext(args[0]), ".spec") {
				// A spec has flags of its own (--expected).
				code := runScenarioFile(name, args[0], args[1:])
				printTermsPointer(os.Stdout, args, code)
				return exitCode(code)
			}
			dir, rest, err := programArgs(name, args, usage, positional)
			if err != nil {
				return err
			}
			if file, err := scenarioFileIn(dir, usage); err != nil {
				return err
			} else if file != "" {
				fmt.Fprintf(os.Stderr, "interleave: %s holds no Go program; running its scenario file %s.\n", dir, file)
				dir = file
			}
			if isScenarioFile(dir) {
				code := runScenarioFile(name, dir, rest)
				printTermsPointer(os.Stdout, args, code)
				return exitCode(code)
			}
			// From here on a SIGINT or SIGTERM is ours to handle, whenever
			// it comes: Go's default action (exit at once) would leave
			// the build directory to the next sweep when it comes before
			// the watchdog knows of it, and say nothing.
			sigs := make(chan os.Signal, 2)
			signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
			defer signal.Stop(sigs)
			bin, cleanup, err := buildProgram(dir, sigs)
			if err != nil {
				var em *exitWithMessage
				if errors.As(err, &em) {
					fmt.Fprintf(os.Stderr, "interleave: %s.\n", em.msg)
					return exitCode(em.code)
				}
				return err
			}
			defer cleanup()
			childArgs := append([]string{name}, rest...)
			env, stop, err := dockerForChild(cmd.Context(), rest)
			if err != nil {
				return err
			}
			defer stop()
			code := runChild(bin, childArgs, dir, env, sigs)
			printTermsPointer(os.Stdout, args, code)
			return exitCode(code)
		},
	}
	// `interleave help run` prints the same, without building anything.
	cmd.SetHelpFunc(func(c *cobra.Command, _ []string) { help(c.OutOrStdout()) })
	return cmd
}

// programArgs checks the flags of run, replay or minimize before anything
// is built, as the scenario program will parse them, and takes out DIR:
// the first argument that is not a flag or a flag's value.
func programArgs(name string, args []string, usage string, positional int) (string, []string, error) {
	pos, at, err := cli.ParseArgs(name, args, usage)
	if err != nil {
		return "", nil, err
	}
	what := map[string]string{
		"run":      "DIR, the scenario program's directory (or a scenario file)",
		"replay":   "DIR and ARTIFACT: the scenario program's directory (or a scenario file) and the recorded failure",
		"minimize": "DIR and ARTIFACT: the scenario program's directory (or a scenario file) and the recorded failure",
	}[name]
	switch {
	case len(pos) < positional && len(pos) == 0:
		return "", nil, &cli.UsageError{Msg: fmt.Sprintf("%s needs %s", name, what), Usage: usage}
	case len(pos) < positional:
		return "", nil, &cli.UsageError{Msg: fmt.Sprintf("%s needs %s; got only %q", name, what, termtext.Line(pos[0])), Usage: usage}
	case len(pos) > positional:
		return "", nil, &cli.UsageError{Msg: fmt.Sprintf("%s takes %s; got %d arguments: %s", name, what, len(pos), quoteArgs(pos)), Usage: usage}
	}
	rest := append(append([]string{}, args[:at[0]]...), args[at[0]+1:]...)
	return pos[0], rest, nil
}

// scenarioFileIn is the scenario file to run when dir holds no Go files
// but one scenario file (what `interleave init --js` or `--yaml` writes),
// "" when dir holds Go files (or is not a directory: the build says why),
// and an error that says what to run when it holds several or none.
func scenarioFileIn(dir, usage string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", nil
	}
	var files []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() {
			continue
		}
		if strings.HasSuffix(n, ".go") {
			return "", nil
		}
		switch strings.ToLower(filepath.Ext(n)) {
		case ".yaml", ".yml", ".mjs", ".spec":
			files = append(files, filepath.Join(dir, n))
		case ".js":
			if strings.HasPrefix(n, "scenario.") {
				files = append(files, filepath.Join(dir, n))
			}
		}
	}
	switch len(files) {
	case 0:
		return "", &cli.UsageError{Msg: fmt.Sprintf("%s holds no Go files and no scenario file: give the directory of a main package that calls interleave.Main, or a scenario file (.yaml, .mjs, .spec); interleave init writes one", dir), Usage: usage}
	case 1:
		return files[0], nil
	}
	return "", &cli.UsageError{Msg: fmt.Sprintf("%s holds no Go program but several scenario files (%s): name the one to run, for example interleave run %s", dir, termtext.Line(strings.Join(files, ", ")), shellQuote(files[0])), Usage: usage}
}

// programExamples are the examples of run, replay and minimize.
var programExamples = map[string]string{
	"run": `  interleave run ./examples/counter --out failure.json
  interleave run scenario.yaml --max-time 2m --workers 4
  interleave run scenario.mjs --strategy pct --seed 7 --max-runs 500 --json
  interleave run deadlock.spec --expected deadlock.out
`,
	"replay": `  interleave replay ./examples/counter failure.json
  interleave replay ./examples/counter-fixed failure.json --guided
  interleave replay scenario.yaml failure.json --json
`,
	"minimize": `  interleave minimize ./examples/counter failure.json --out minimal.json
  interleave minimize scenario.mjs failure.json --max-time 5m --json
`,
}

// buildProgram compiles the main package in dir into a temporary directory.
// A signal on sigs (one that came before, too) stops it.
func buildProgram(dir string, sigs <-chan os.Signal) (string, func(), error) {
	st, err := os.Stat(dir)
	if err != nil {
		return "", nil, fmt.Errorf("scenario program %s: %w", dir, err)
	}
	if !st.IsDir() {
		return "", nil, fmt.Errorf("%s is not a directory; give the directory of a main package that calls interleave.Main", dir)
	}
	tmp, err := supervise.MkdirTemp("", "interleave-build-") // removed even if we are killed
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { supervise.RemoveAll(tmp) }
	if s := pendingSignal(sigs); s != nil {
		cleanup()
		return "", nil, &exitWithMessage{code: signalExit(s), msg: fmt.Sprintf("%v received before the scenario program was built; its build directory was removed", s)}
	}
	bin := filepath.Join(tmp, "scenario")
	abs, _ := filepath.Abs(dir)
	cmd := exec.Command("go", "build", "-C", abs, "-o", bin, ".")
	// The go command's output is held back until it ends: a module that
	// lacks go.sum entries gets one line that says what to run instead of
	// the go command's list of them.
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	removeWork, err := supervise.GoWork(cmd) // a killed build leaves no go-build* behind
	if err != nil {
		cleanup()
		return "", nil, err
	}
	defer removeWork()
	supervise.Prepare(cmd) // never outlives us
	if err := supervise.Start(cmd); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("run the go command to build %s: %w; is Go installed and on PATH?", dir, err)
	}
	built := make(chan error, 1)
	go func() { built <- supervise.Wait(cmd) }()
	select {
	case err = <-built:
	case s := <-sigs:
		_ = supervise.KillTree(cmd)
		<-built
		cleanup()
		return "", nil, &exitWithMessage{code: signalExit(s), msg: fmt.Sprintf("%v received while building the scenario program; the build was stopped and its directory removed", s)}
	}
	if err != nil {
		cleanup()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if msg := untidyModule(out.String(), abs); msg != "" {
				return "", nil, errors.New(msg)
			}
			os.Stderr.Write(out.Bytes())
			return "", nil, fmt.Errorf("building the scenario program in %s failed (see the compiler output above)", dir)
		}
		os.Stderr.Write(out.Bytes())
		return "", nil, fmt.Errorf("run the go command to build %s: %w; is Go installed and on PATH?", dir, err)
	}
	return bin, cleanup, nil
}

// untidyModule is the advice for a build that failed because the module's
// go.mod or go.sum is not complete (the go command then lists every
// missing entry and a `go get` for each), or "" for any other failure.
func untidyModule(output, dir string) string {
	switch {
	case strings.Contains(output, "missing go.sum entry"):
	case strings.Contains(output, "updates to go.mod needed"):
	case strings.Contains(output, "no required module provides package"):
	default:
		return ""
	}
	root := dir
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			root = d
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return fmt.Sprintf("the scenario program in %s cannot be built yet: its module's go.mod or go.sum lacks entries for the modules it imports; run `go mod tidy` in %s (it downloads them), then run this again", dir, root)
}

// pendingSignal is a signal already received on sigs, or nil.
func pendingSignal(sigs <-chan os.Signal) os.Signal {
	select {
	case s := <-sigs:
		return s
	default:
		return nil
	}
}

// signalExit is the exit code after signal s: 128+N.
func signalExit(s os.Signal) int {
	if sig, ok := s.(syscall.Signal); ok {
		return 128 + int(sig)
	}
	return 2
}

// runChild runs the scenario program in its own process group and forwards
// each SIGINT/SIGTERM received on sigs to it, so that it cleans up before
// exiting; one received before it starts means it is not started.
func runChild(bin string, args []string, dir string, extraEnv []string, sigs <-chan os.Signal) int {
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	abs, _ := filepath.Abs(dir)
	cmd.Env = append(append(os.Environ(), "INTERLEAVE_PROGRAM_DIR="+abs), extraEnv...)
	if s := pendingSignal(sigs); s != nil {
		fmt.Fprintf(os.Stderr, "interleave: %v received before the scenario program started; its build directory is removed.\n", s)
		return signalExit(s)
	}
	supervise.Prepare(cmd, supervise.Cooperative(30*time.Second)) // it watches its lifeline and cleans up if we die
	if err := supervise.Start(cmd); err != nil {
		fmt.Fprintf(os.Stderr, "interleave: start the scenario program: %v\n", err)
		return 2
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				_ = cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	err := supervise.Wait(cmd)
	close(done)
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			// The program handles the signals we forward and exits with
			// its code; killed outright, it said nothing: say it.
			fmt.Fprintf(os.Stderr, "interleave: the scenario program was killed by signal %d (%v) before it finished; its server and temporary files are removed by its supervisor. If this was not you, look for an out-of-memory kill in the system log.\n", int(ws.Signal()), ws.Signal())
			return interleave.ExitError
		}
		return ee.ExitCode()
	}
	fmt.Fprintf(os.Stderr, "interleave: %s: %s\n", strings.Join(args, " "), termtext.Line(err.Error()))
	return 2
}

// isScenarioFile reports whether arg names a scenario file rather than a
// program directory: it ends in .yaml, .yml or .spec.
func isScenarioFile(arg string) bool {
	switch strings.ToLower(filepath.Ext(arg)) {
	case ".yaml", ".yml", ".spec":
		return true
	}
	return scenario.IsJSFile(arg)
}

// runScenarioFile runs a scenario file in this process: a YAML file through
// the scenario programs' command line (its options as the flags' defaults,
// its files fingerprinted), a spec file through scenario.RunSpec.
func runScenarioFile(name, path string, args []string) int {
	if strings.EqualFold(filepath.Ext(path), ".spec") {
		if name != "run" {
			fmt.Fprintf(os.Stderr, "interleave: %s is an isolation-tester spec; specs run with `interleave run %s [--expected FILE]`, there is no artifact to %s.\n", path, path, name)
			return interleave.ExitError
		}
		return runSpecFile(path, args)
	}
	load := scenario.LoadFile
	if scenario.IsJSFile(path) {
		load = func(p string) (*scenario.Loaded, error) {
			return scenario.LoadJSWith(p, scenario.JSOptions{Output: os.Stderr})
		}
	}
	loaded, err := load(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "interleave: %s\n", termtext.Lines(err.Error()))
		return interleave.ExitError
	}
	defer loaded.Close()
	return cli.Run(append([]string{name}, args...), os.Stdout, os.Stderr, cli.Program{Scenarios: []interleave.Scenario{loaded.Scenario}, Defaults: loaded.Options, Docker: dockerProvider})
}

// runSpecFile is `interleave run FILE.spec [--expected FILE] [--database-url
// URL] [--pg-bin DIR]`.
func runSpecFile(path string, args []string) int {
	fs := pflag.NewFlagSet("run "+path, pflag.ContinueOnError)
	var o interleave.Options
	var expected string
	fs.StringVar(&expected, "expected", "", "the tester's expected output: compare and print a diff when it differs (exit 1)")
	fs.StringVar(&o.Server.DatabaseURL, "database-url", "", "dedicated test server URL (default: a managed throwaway PostgreSQL; also TEST_DATABASE_URL)")
	fs.StringVar(&o.Server.PGBin, "pg-bin", "", "directory with PostgreSQL's initdb and postgres")
	fs.DurationVar(&o.AttemptTimeout, "attempt-timeout", 30*time.Second, "deadline for one permutation; a hang is inconclusive")
	fs.IntVar(&o.Search.Workers, "workers", 0, "permutations run in parallel, each on its own database (default: CPUs, at most 4)")
	asJSON := fs.Bool("json", false, "not available: a spec prints the isolation tester's output format")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		return reportError(err, args, os.Stdout, os.Stderr)
	}
	if *asJSON {
		return reportError(errors.New("an isolation-tester spec prints the tester's output format (what --expected compares), not JSON: drop --json, or run a YAML or Go scenario for a JSON summary"), args, os.Stdout, os.Stderr)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "interleave: unexpected argument %q after %s\n", fs.Arg(0), termtext.Line(path))
		return interleave.ExitError
	}
	spec, err := scenario.LoadSpec(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "interleave: %s\n", termtext.Lines(err.Error()))
		return interleave.ExitError
	}
	spec.Expected = expected
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	var got atomic.Int32
	go func() {
		if s, ok := (<-sigs).(syscall.Signal); ok {
			got.Store(int32(s))
			cancel()
		}
	}()
	code, err := scenario.RunSpec(ctx, spec, o, os.Stdout)
	if n := got.Load(); n != 0 {
		fmt.Fprintf(os.Stderr, "interleave: interrupted; the server and temporary files were removed.\n")
		return 128 + int(n)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "interleave: %s\n", termtext.Lines(err.Error()))
	}
	return code
}

// programHelp says what DIR is, per command.
var programHelp = map[string]string{
	"run": `DIR is a main package that calls interleave.Main (it is built first). A scenario
file may stand for DIR: YAML (.yaml, .yml) or a JavaScript defineScenario module
(.mjs, .js); a DIR with no Go files and one scenario file runs that file.
` + "`interleave run FILE.spec [--expected FILE]`" + ` runs a PostgreSQL isolation-tester spec.
`,
	"replay": `DIR is the scenario program (or scenario file) that recorded ARTIFACT, or its
repaired version with --guided. Exit 1 while the recorded failure still happens,
0 once it does not, 3 when the recording does not apply.
`,
	"minimize": `DIR is the scenario program (or scenario file) that recorded ARTIFACT. The result
is verified by exact replay and saved with --out.
`,
}

// wantsHelp reports whether args ask for help before naming a program:
// help needs no build.
func wantsHelp(args []string) bool {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "--help" || a == "-help" {
			return true
		}
	}
	return false
}

// exitWithMessage ends the command with code after printing msg.
type exitWithMessage struct {
	code int
	msg  string
}

func (e *exitWithMessage) Error() string { return e.msg }

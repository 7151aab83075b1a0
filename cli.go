package interleave

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/supervise"
	"github.com/spf13/cobra"
)

// Main is a scenario program's command line: run, replay and minimize the
// given scenarios. It exits with Interleave's codes: 0 pass, 1 violation,
// 2 usage/actor/harness error, 3 incompatible replay, 4 inconclusive or
// budget spent, 128+N after signal N (after cleanup).
func Main(scenarios ...Scenario) {
	os.Exit(runCLI(os.Args[1:], os.Stdout, os.Stderr, Options{ProgramDir: programDir()}, Options{}, scenarios))
}

// RunCLI is Main without the exit: it parses args, runs, and returns the
// exit code. Sources are not fingerprinted (there is no program directory).
func RunCLI(args []string, stdout, stderr io.Writer, scenarios ...Scenario) int {
	return runCLI(args, stdout, stderr, Options{}, Options{}, scenarios)
}

// programDir finds the scenario program's package directory: the one
// `interleave run` passes, or the directory of the file that called Main
// when it exists on this machine.
func programDir() string {
	if d := os.Getenv("INTERLEAVE_PROGRAM_DIR"); d != "" {
		return d
	}
	if _, file, _, ok := runtime.Caller(2); ok {
		dir := filepath.Dir(file)
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			return dir
		}
	}
	return ""
}

// runCLI runs the command line. base seeds the options of run, replay and
// minimize (where the scenario's sources are); defaults become their flags'
// defaults (a scenario file's options block).
func runCLI(args []string, stdout, stderr io.Writer, base, defaults Options, scenarios []Scenario) int {
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

	code := ExitPass
	root := newRootCommand(ctx, stdout, stderr, scenarios, &code, base)
	for _, c := range root.Commands() {
		applyDefaults(c.Flags(), defaults)
	}
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	if err := root.Execute(); err != nil {
		if n := sig.Load(); n != 0 {
			fmt.Fprintf(stderr, "interleave: interrupted; the server and temporary files were removed.\n")
			return 128 + int(n)
		}
		fmt.Fprintf(stderr, "interleave: %v\n", oneSentence(err))
		var ce *codeError
		if errors.As(err, &ce) {
			return ce.code
		}
		return ExitError
	}
	if n := sig.Load(); n != 0 {
		fmt.Fprintf(stderr, "interleave: interrupted; the server and temporary files were removed.\n")
		return 128 + int(n)
	}
	return code
}

// codeError carries an exit code through cobra.
type codeError struct {
	code int
	err  error
}

func (e *codeError) Error() string { return e.err.Error() }
func (e *codeError) Unwrap() error { return e.err }

func oneSentence(err error) string {
	s := strings.TrimSpace(err.Error())
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

func newRootCommand(ctx context.Context, stdout, stderr io.Writer, scenarios []Scenario, code *int, base Options) *cobra.Command {
	root := &cobra.Command{
		Use:           "scenario",
		Short:         "Run, replay and minimize Interleave scenarios",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newRunCommand(ctx, stdout, scenarios, code, base))
	root.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List the scenarios in this program",
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, s := range scenarios {
				fmt.Fprintf(stdout, "%s\t%d actors: %s\n", s.Name, len(s.Actors), strings.Join(s.actorNames(), ", "))
			}
			return nil
		},
	})
	addReplayCommands(ctx, root, stdout, scenarios, code, base)
	return root
}

// bindOptions registers the flags shared by run, replay and minimize.
func bindOptions(cmd *cobra.Command, o *Options) {
	f := cmd.Flags()
	f.StringVar(&o.DatabaseURL, "database-url", "", "dedicated test server URL (default: a managed throwaway PostgreSQL; also TEST_DATABASE_URL)")
	f.BoolVar(&o.Docker, "docker", false, "start the throwaway server as a Docker container (Docker API; DOCKER_HOST is honoured)")
	f.StringVar(&o.DockerImage, "docker-image", "postgres:16", "the image for --docker")
	f.StringVar(&o.PGBin, "pg-bin", "", "directory with PostgreSQL's initdb and postgres (default: search PATH, pg_config, /usr/lib/postgresql/*/bin)")
	f.BoolVar(&o.UpstreamTLS, "upstream-tls", false, "proxies reach the server over TLS, verify-full against the system roots or --upstream-ca")
	f.StringVar(&o.UpstreamCA, "upstream-ca", "", "PEM file of the CA that signed the server's certificate (with --upstream-tls)")
	f.StringVar(&o.Connections, "connections", "single-producer", "connection profile: single-producer or multi-producer (connection pools)")
	f.StringVar(&o.ProtocolProfile, "protocol-profile", "sync-cycle", "protocol profile: sync-cycle or flush-stages")
	f.IntVar(&o.MaxMessage, "max-message", 0, "largest client message the proxy accepts, in bytes (default 256 MiB)")
	f.DurationVar(&o.AttemptTimeout, "attempt-timeout", 30*time.Second, "deadline for one attempt; a hang becomes inconclusive")
	f.DurationVar(&o.Settle, "settle", 0, "quiet time that ends a multi-producer actor's turn (default 5ms)")
	f.StringVar(&o.Out, "out", "", "write the failing attempt's artifact to this file")
	f.BoolVar(&o.Force, "force", false, "overwrite --out if it exists")
	f.StringVar(&o.Capture, "capture", "failures", "keep the byte-exact wire capture of: failures, all, off")
}

func findScenario(scenarios []Scenario, name string) ([]Scenario, error) {
	if len(scenarios) == 0 {
		return nil, &codeError{ExitError, errors.New("this program defines no scenarios; pass them to interleave.Main")}
	}
	if name == "" {
		return scenarios, nil
	}
	for _, s := range scenarios {
		if s.Name == name {
			return []Scenario{s}, nil
		}
	}
	var names []string
	for _, s := range scenarios {
		names = append(names, s.Name)
	}
	return nil, &codeError{ExitError, fmt.Errorf("no scenario named %q (this program has: %s)", name, strings.Join(names, ", "))}
}

func newRunCommand(ctx context.Context, stdout io.Writer, scenarios []Scenario, code *int, base Options) *cobra.Command {
	o := base
	var name, shard, summaryPath string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Search the orders of the scenario's commands for one that breaks its invariant",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			list, err := findScenario(scenarios, name)
			if err != nil {
				return err
			}
			if len(list) > 1 && (o.Out != "" || summaryPath != "" || asJSON) {
				return &codeError{ExitError, errors.New("--out, --summary and --json need --scenario NAME when the program has several scenarios")}
			}
			if shard != "" {
				var err error
				if o.Shard, o.Shards, err = ParseShard(shard); err != nil {
					return &codeError{ExitError, err}
				}
			}
			if asJSON {
				o.Progress = false
			}
			worst := ExitPass
			for _, sc := range list {
				res, err := Explore(ctx, sc, o)
				if res != nil {
					if asJSON {
						enc := json.NewEncoder(stdout)
						enc.SetIndent("", "  ")
						enc.Encode(res.SummaryFile())
					} else {
						res.Print(stdout)
					}
					if summaryPath != "" && res.Summary != nil {
						data, _ := json.MarshalIndent(res.SummaryFile(), "", "  ")
						if werr := artifact.WriteFileAtomic(summaryPath, append(data, '\n'), true); werr != nil {
							return &codeError{ExitError, fmt.Errorf("write --summary: %w", werr)}
						}
					}
				}
				if err != nil {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					return &codeError{ExitError, err}
				}
				worst = worse(worst, res.ExitCode())
			}
			*code = worst
			return nil
		},
	}
	bindOptions(cmd, &o)
	f := cmd.Flags()
	f.StringVar(&name, "scenario", "", "run only the scenario with this name")
	f.IntVar(&o.MaxAttempts, "max-runs", 0, "stop after this many attempts (0: no limit)")
	f.IntVar(&o.MaxAttempts, "max-attempts", 0, "same as --max-runs")
	f.DurationVar(&o.MaxTime, "max-time", 0, "stop after this long (0: no limit)")
	f.IntVar(&o.MaxDepth, "max-depth", 0, "explore only orders with at most this many choices (0: no limit)")
	f.BoolVar(&o.KeepGoing, "keep-going", false, "continue after the first violation")
	f.StringVar(&o.Strategy, "strategy", "fifo", "search strategy: fifo (fewest choices first), dfs, random or pct")
	f.Int64Var(&o.Seed, "seed", 0, "seed for random and pct (default: drawn, printed and recorded)")
	f.IntVar(&o.Depth, "depth", 2, "pct: the bug depth d (d-1 priority change points)")
	f.StringVar(&o.Overlap, "overlap", "", "pairs: also release two units of different actors together and let PostgreSQL interleave them")
	f.IntVar(&o.Workers, "workers", 0, "attempts run in parallel, each on its own database (default: one per CPU)")
	f.IntVar(&o.FrontierBytes, "frontier-bytes", 0, "memory budget for pending prefixes (default 256 MiB)")
	f.BoolVar(&o.Progress, "progress", true, "show a live status line when stderr is a terminal")
	f.StringVar(&shard, "shard", "", "explore part K of N of the search (K/N, 1 <= K <= N); combine with interleave merge")
	f.StringVar(&summaryPath, "summary", "", "also write the machine-readable summary to this file (for interleave merge)")
	f.BoolVar(&asJSON, "json", false, "print the machine-readable summary instead of the human one")
	return cmd
}

// worse picks the exit code that matters more to CI.
func worse(a, b int) int {
	rank := map[int]int{ExitPass: 0, ExitInconclusive: 1, ExitIncompatible: 2, ExitViolation: 3, ExitError: 4}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

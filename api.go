package interleave

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/cmd/cli"
	"github.com/pginterleave/interleave/engine"
	"github.com/pginterleave/interleave/explain"
	"github.com/pginterleave/interleave/export"
	"github.com/pginterleave/interleave/report"
)

// Explore searches the orders of sc's commands for one that breaks the
// invariant, within opts' budgets.
func Explore(ctx context.Context, sc Scenario, opts Options) (*Result, error) {
	return engine.Explore(ctx, sc, opts)
}

// RunOnce runs a single attempt in the default order, or in
// opts.Search.Order when it is set.
func RunOnce(ctx context.Context, sc Scenario, opts Options) (*Result, error) {
	return engine.RunOnce(ctx, sc, opts)
}

// Replay runs sc in the order rec recorded. An exact replay first checks the
// fingerprint (sources, versions, server, settings, then the database after
// setup) and reports every difference as incompatible before actors run;
// then it requires each pending command to be the recorded one. A guided
// replay follows the recorded order of actors against changed code.
func Replay(ctx context.Context, sc Scenario, rec *artifact.Artifact, opts ReplayOptions) (*ReplayResult, error) {
	return engine.Replay(ctx, sc, rec, opts)
}

// Minimize verifies a failure by exact replay, then removes choices (delta
// debugging) while the same failure still happens, and says whether the
// result is locally minimal.
func Minimize(ctx context.Context, sc Scenario, rec *artifact.Artifact, opts MinimizeOptions) (*MinimizeResult, error) {
	return engine.Minimize(ctx, sc, rec, opts)
}

// ExplainOptions configure Explain: the Options of a run, and the bounds of
// the critical pair's reversals and of the retries at stronger levels.
type ExplainOptions = engine.ExplainOptions

// Explanation is what Explain says of a failure (docs/explaining.md;
// docs/json/explain.v1.schema.json is its JSON).
type Explanation = explain.Explanation

// Explain says what went wrong in the failure rec recorded and what would
// fix it, each claim shown on PostgreSQL: the dependency cycle between its
// transactions and the anomaly's name (lost update, write skew, read skew,
// phantom, read-only anomaly; Adya's G-single, G2-item, G2), or "no
// dependency cycle between transactions"; the critical pair, two commands
// whose reversal, everything else kept, makes the order pass (found by
// running reversals); and the fix class, from the same order run with every
// actor's sessions at REPEATABLE READ and at SERIALIZABLE (actors that fail
// with 40001 or 40P01 run again). The anomaly alone is in
// rec.Explanation already when a search or a run saved the failure.
func Explain(ctx context.Context, sc Scenario, rec *artifact.Artifact, opts ExplainOptions) (*Explanation, error) {
	return engine.Explain(ctx, sc, rec, opts)
}

// CommandActor is an actor that runs a program in any language. The program
// reaches its proxy through DATABASE_URL and PGHOST, PGPORT, PGDATABASE,
// PGUSER, PGPASSWORD and PGSSLMODE=disable; INTERLEAVE_ACTOR names it. Its
// stdout may carry one JSON value, its result; a non-zero exit is an actor
// error with the tail of stderr (passwords redacted).
func CommandActor(name string, argv []string, opts CommandOptions) Actor {
	return engine.CommandActor(name, argv, opts)
}

// ExportRegression packages the failure recorded at artifactPath, found by
// the scenario program in programDir, as an offline regression bundle in
// out: the artifact, the program's sources with its module vendored, a
// binary for this platform, a replay script, a README and a SHA-256
// manifest. The sources must be the recorded ones.
func ExportRegression(ctx context.Context, programDir, artifactPath, out string, force bool, log io.Writer) error {
	return export.Bundle(ctx, export.Options{ProgramDir: programDir, Artifact: artifactPath, Out: out, Force: force, Log: log})
}

// RenderReport writes the artifact as one self-contained, offline HTML file
// (strict Content-Security-Policy, nothing from the artifact executed).
// replayCommand is the command shown to copy; empty derives one.
func RenderReport(w io.Writer, a *artifact.Artifact, replayCommand string) error {
	return report.Render(w, a, report.Options{ReplayCommand: replayCommand})
}

// Main is a scenario program's command line: run, replay and minimize the
// given scenarios (`PROGRAM run --help` lists the flags). It exits with
// Interleave's codes: 0 pass, 1 violation, 2 usage/actor/harness error,
// 3 incompatible replay, 4 inconclusive or budget spent, 128+N after signal
// N (after cleanup).
func Main(scenarios ...Scenario) {
	var defaults Options
	defaults.Source.ProgramDir = programDir()
	os.Exit(cli.Run(os.Args[1:], os.Stdout, os.Stderr, cli.Program{Scenarios: scenarios, Defaults: defaults}))
}

// RunCLI is Main without the exit: it parses args, runs, and returns the
// exit code. Sources are not fingerprinted (there is no program directory).
func RunCLI(args []string, stdout, stderr io.Writer, scenarios ...Scenario) int {
	return cli.Run(args, stdout, stderr, cli.Program{Scenarios: scenarios})
}

// RunCLIWithOptions is RunCLI for scenarios that are not Go programs (a
// scenario file): defaults are the flags' defaults (flags given in args
// win), and defaults.Source names the files the fingerprint covers.
func RunCLIWithOptions(args []string, stdout, stderr io.Writer, defaults Options, scenarios ...Scenario) int {
	return cli.Run(args, stdout, stderr, cli.Program{Scenarios: scenarios, Defaults: defaults})
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

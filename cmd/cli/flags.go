package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/pginterleave/interleave/engine"
	"github.com/pginterleave/interleave/search"
)

// settings is everything a command's flags set: the library's options and
// what only the command line has.
type settings struct {
	opts engine.Options

	scenario    string // --scenario NAME
	json        bool
	progress    bool
	shard       string
	summary     string
	plan        string
	docker      bool
	dockerImage string

	guided bool
	repeat int

	reductionCheck int // --reduction-check N (0: off)
	criticalPair   int // --critical-pair N (0: off)

	minAttempts int
	minTime     time.Duration

	maxReversals int    // explain --max-reversals
	explainHTML  string // explain --report FILE
	pauseAt      int    // replay --pause-at (-1: none)
}

// A flag is defined once, here: the scenario programs parse it and the
// interleave command shows it in its help without building anything.
type flagDef struct {
	name  string
	usage string
	bind  func(fs *flag.FlagSet, s *settings, name, usage string)
	// option is the Options field the flag sets, for errors the library
	// reports by field ("Options.Search.Workers" is --workers).
	option string
}

func strFlag(f func(*settings) *string) func(*flag.FlagSet, *settings, string, string) {
	return func(fs *flag.FlagSet, s *settings, name, usage string) { p := f(s); fs.StringVar(p, name, *p, usage) }
}
func intFlag(f func(*settings) *int) func(*flag.FlagSet, *settings, string, string) {
	return func(fs *flag.FlagSet, s *settings, name, usage string) { p := f(s); fs.IntVar(p, name, *p, usage) }
}
func int64Flag(f func(*settings) *int64) func(*flag.FlagSet, *settings, string, string) {
	return func(fs *flag.FlagSet, s *settings, name, usage string) { p := f(s); fs.Int64Var(p, name, *p, usage) }
}
func boolFlag(f func(*settings) *bool) func(*flag.FlagSet, *settings, string, string) {
	return func(fs *flag.FlagSet, s *settings, name, usage string) { p := f(s); fs.BoolVar(p, name, *p, usage) }
}
func durFlag(f func(*settings) *time.Duration) func(*flag.FlagSet, *settings, string, string) {
	return func(fs *flag.FlagSet, s *settings, name, usage string) { p := f(s); fs.DurationVar(p, name, *p, usage) }
}
func valueFlag(f func(*settings) flag.Value) func(*flag.FlagSet, *settings, string, string) {
	return func(fs *flag.FlagSet, s *settings, name, usage string) { fs.Var(f(s), name, usage) }
}

// serverFlags, attemptFlags and outputFlags are shared by run, replay and
// minimize.
var serverFlags = []flagDef{
	{"database-url", "dedicated test server URL (default: a managed throwaway PostgreSQL; also TEST_DATABASE_URL)", strFlag(func(s *settings) *string { return &s.opts.Server.DatabaseURL }), "Server.DatabaseURL"},
	{"pg-bin", "directory with PostgreSQL's initdb and postgres (default: $INTERLEAVE_PG_BIN, PATH, pg_config, the usual install places)", strFlag(func(s *settings) *string { return &s.opts.Server.PGBin }), "Server.PGBin"},
	{"docker", "start the throwaway server as a Docker container through the Docker API (DOCKER_HOST is honoured)", boolFlag(func(s *settings) *bool { return &s.docker }), "Server.Provider"},
	{"docker-image", "the image for --docker", strFlag(func(s *settings) *string { return &s.dockerImage }), ""},
	{"upstream-tls", "proxies reach the server over TLS, verify-full against the system roots or --upstream-ca", boolFlag(func(s *settings) *bool { return &s.opts.Server.TLS }), "Server.TLS"},
	{"upstream-ca", "PEM file of the CA that signed the server's certificate (with --upstream-tls)", strFlag(func(s *settings) *string { return &s.opts.Server.CA }), "Server.CA"},
}

var attemptFlags = []flagDef{
	{"connections", "connection profile: single-producer or multi-producer (connection pools)", valueFlag(func(s *settings) flag.Value { return &s.opts.Proxy.Connections }), "Proxy.Connections"},
	{"protocol-profile", "protocol profile: sync-cycle or flush-stages", valueFlag(func(s *settings) flag.Value { return &s.opts.Proxy.Protocol }), "Proxy.Protocol"},
	{"max-message", "largest client message the proxy accepts, in bytes (0: 256 MiB)", intFlag(func(s *settings) *int { return &s.opts.Proxy.MaxMessage }), "Proxy.MaxMessage"},
	{"settle", "quiet time that ends a multi-producer actor's turn (0: 5ms)", durFlag(func(s *settings) *time.Duration { return &s.opts.Proxy.Settle }), "Proxy.Settle"},
	{"fresh-sessions", "a new backend for every actor connection, instead of resetting an actor's session with DISCARD ALL when its connection ends cleanly and handing it to the actor's next attempt (slower; for code that depends on a fresh backend)", boolFlag(func(s *settings) *bool { return &s.opts.Proxy.FreshSessions }), "Proxy.FreshSessions"},
	{"attempt-timeout", "deadline for one attempt; a hang becomes inconclusive", durFlag(func(s *settings) *time.Duration { return &s.opts.AttemptTimeout }), "AttemptTimeout"},
	{"capture", "keep the byte-exact wire capture of: failures, all, off", valueFlag(func(s *settings) flag.Value { return &s.opts.Capture.Mode }), "Capture.Mode"},
	{"secret-env", "the name of an environment variable whose value is a secret to mask in everything kept and shown, like the server's password (repeat for several; the value never appears on the command line)", valueFlag(func(s *settings) flag.Value { return (*secretEnv)(&s.opts.Capture.Secrets) }), "Capture.Secrets"},
}

// strategyHelp lists the strategies for --strategy's help, from the
// search's one list: "fifo (fewest choices first), dfs, random or pct".
func strategyHelp() string {
	var b strings.Builder
	for i, s := range search.Strategies {
		switch {
		case i == 0:
		case i == len(search.Strategies)-1:
			b.WriteString(" or ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(string(s.Strategy))
		if i == 0 {
			b.WriteString(" (" + s.About + ")")
		}
	}
	return b.String()
}

// secretEnv adds the value of a named environment variable to the
// secrets: a value given on the command line would show in ps.
type secretEnv []string

func (e *secretEnv) String() string { return "" }

func (e *secretEnv) Set(name string) error {
	v, err := SecretFromEnv(name)
	if err != nil {
		return err
	}
	*e = append(*e, v)
	return nil
}

// SecretFromEnv is the secret --secret-env NAME names: the value of the
// environment variable, which must be set and not empty.
func SecretFromEnv(name string) (string, error) {
	v, ok := os.LookupEnv(name)
	switch {
	case !ok:
		return "", fmt.Errorf("the environment variable %s is not set", name)
	case v == "":
		return "", fmt.Errorf("the environment variable %s is empty", name)
	}
	return v, nil
}

var outputFlags = []flagDef{
	{"out", "write the artifact to this file (checked before the search starts)", strFlag(func(s *settings) *string { return &s.opts.Output.Out }), "Output.Out"},
	{"force", "overwrite --out if it exists", boolFlag(func(s *settings) *bool { return &s.opts.Output.Force }), "Output.Force"},
	{"json", "print the machine-readable result on stdout (errors too)", boolFlag(func(s *settings) *bool { return &s.json }), ""},
	{"scenario", "the scenario to use when the program defines several", strFlag(func(s *settings) *string { return &s.scenario }), ""},
}

var searchFlags = []flagDef{
	{"max-runs", "stop after this many attempts (0: no limit)", intFlag(func(s *settings) *int { return &s.opts.Search.MaxAttempts }), "Search.MaxAttempts"},
	{"max-attempts", "same as --max-runs", intFlag(func(s *settings) *int { return &s.opts.Search.MaxAttempts }), ""},
	{"max-time", "stop after this long (0: no limit)", durFlag(func(s *settings) *time.Duration { return &s.opts.Search.MaxTime }), "Search.MaxTime"},
	{"max-depth", "explore only orders with at most this many choices (0: no limit)", intFlag(func(s *settings) *int { return &s.opts.Search.MaxDepth }), "Search.MaxDepth"},
	{"keep-going", "continue after the first violation", boolFlag(func(s *settings) *bool { return &s.opts.Search.KeepGoing }), "Search.KeepGoing"},
	{"strategy", "search strategy: " + strategyHelp(), valueFlag(func(s *settings) flag.Value { return &s.opts.Search.Strategy }), "Search.Strategy"},
	{"seed", "seed for random and pct (0: drawn, printed and recorded)", int64Flag(func(s *settings) *int64 { return &s.opts.Search.Seed }), "Search.Seed"},
	{"depth", "pct: the bug depth d (d-1 priority change points; 0: 2)", intFlag(func(s *settings) *int { return &s.opts.Search.Depth }), "Search.Depth"},
	{"overlap", "pairs: also release two units of different actors together and let PostgreSQL interleave them", valueFlag(func(s *settings) flag.Value { return &s.opts.Search.Overlap }), "Search.Overlap"},
	{"pair-repeats", "with --overlap pairs: run a plan that ends with a pair up to this many times until it fails (0: 10)", intFlag(func(s *settings) *int { return &s.opts.Search.PairRepeats }), "Search.PairRepeats"},
	{"reduction", "por: run once the orders that differ only by swapping independent commands (default); none: every order", valueFlag(func(s *settings) flag.Value { return &s.opts.Search.Reduction }), "Search.Reduction"},
	{"reduction-check", "after a reduced search explores every order, run this many of the orders it skipped as equivalent before saying pass (0: none)", intFlag(func(s *settings) *int { return &s.reductionCheck }), "Search.ReductionCheck"},
	{"critical-pair", "after saving a failure, run up to this many orders with two dependent commands of it swapped, to name the pair whose reversal passes (0: none)", intFlag(func(s *settings) *int { return &s.criticalPair }), "Output.Reversals"},
	{"workers", "attempts run in parallel, each on its own database (0: one per CPU)", intFlag(func(s *settings) *int { return &s.opts.Search.Workers }), "Search.Workers"},
	{"frontier-bytes", "memory budget for pending prefixes (0: 256 MiB)", intFlag(func(s *settings) *int { return &s.opts.Search.FrontierBytes }), "Search.FrontierBytes"},
	{"shard", "explore part K of N of the search (K/N, 1 <= K <= N); combine with interleave merge", strFlag(func(s *settings) *string { return &s.shard }), "Search.Shard"},
	{"summary", "also write the machine-readable summary to this file (for interleave merge)", strFlag(func(s *settings) *string { return &s.summary }), ""},
	{"progress", "show a live status line when stderr is a terminal", boolFlag(func(s *settings) *bool { return &s.progress }), ""},
	{"plan", "run one attempt in this order: alice,bob,alice,bob (each name its actor's next command), or a file with one 'ACTOR N' a line", strFlag(func(s *settings) *string { return &s.plan }), "Search.Order"},
	{"faults", "also explore faults at each command: " + faultsHelp() + " (comma-separated; default none)", valueFlag(func(s *settings) flag.Value { return &s.opts.Search.Faults }), "Search.Faults"},
	{"max-faults", "with --faults: at most this many faults per attempt (0: 1)", intFlag(func(s *settings) *int { return &s.opts.Search.MaxFaults }), "Search.MaxFaults"},
}

var replayFlags = []flagDef{
	{"guided", "follow the recorded order of actors against changed code, then the default order", boolFlag(func(s *settings) *bool { return &s.guided }), ""},
	{"repeat", "replay up to N times until the recorded failure recurs (for recordings with pair releases)", intFlag(func(s *settings) *int { return &s.repeat }), "Repeat"},
}

var minimizeFlags = []flagDef{
	{"max-attempts", "stop minimizing after this many attempts (0: no limit)", intFlag(func(s *settings) *int { return &s.minAttempts }), ""},
	{"max-time", "stop minimizing after this long (0: no limit)", durFlag(func(s *settings) *time.Duration { return &s.minTime }), ""},
}

// commandFlags are the flags of each command, in help order.
var commandFlags = map[string][][]flagDef{
	"run":      {searchFlags, outputFlags, attemptFlags, serverFlags},
	"replay":   {replayFlags, pauseFlags, outputFlags, attemptFlags, serverFlags},
	"minimize": {minimizeFlags, outputFlags, attemptFlags, serverFlags},
	"explain":  {explainFlags, outputFlags, attemptFlags, serverFlags},
}

// flagSet binds the flags of command to s; s's current values are the
// defaults.
func flagSet(command string, s *settings) *flag.FlagSet {
	fs := flag.NewFlagSet(command, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	for _, group := range commandFlags[command] {
		for _, d := range group {
			if fs.Lookup(d.name) == nil {
				d.bind(fs, s, d.name, d.usage)
			}
		}
	}
	return fs
}

// flagForOption names the flag that sets an Options field.
// optionName is how library messages name an option: Options.Server.PGBin,
// ReplayOptions.Repeat, export.Options.Force (the library never names a
// flag; the command line maps).
var optionName = regexp.MustCompile(`\b(?:export\.Options|ReplayOptions|Options)\.[A-Z][A-Za-z]*(?:\.[A-Z][A-Za-z]*)*`)

// exportFlags are the export command's flags for export.Options' fields.
var exportFlags = map[string]string{"export.Options.Out": "--out", "export.Options.Force": "--force"}

// Flagged is a library message with every option it names replaced by the
// flag that sets it, where the command line has one.
func Flagged(msg string) string {
	return optionName.ReplaceAllStringFunc(msg, func(name string) string {
		if f, ok := exportFlags[name]; ok {
			return f
		}
		if f := flagForOption(strings.TrimPrefix(name, "Replay")); f != "" {
			return f
		}
		return name
	})
}

func flagForOption(field string) string {
	field = strings.TrimPrefix(field, "Options.")
	for _, groups := range commandFlags {
		for _, group := range groups {
			for _, d := range group {
				if d.option == field {
					return "--" + d.name
				}
			}
		}
	}
	return ""
}

// Usage is the flag reference of a scenario command (run, replay or
// minimize), with defaults taken from defaults: what `--help` prints.
// extra are flags of the caller's own ({"--safe", "what it does"}), listed
// first.
func Usage(command string, defaults engine.Options, extra ...[2]string) string {
	s := newSettings(defaults)
	fs := flagSet(command, s)
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	order := map[string]int{}
	i := 0
	for _, group := range commandFlags[command] {
		for _, d := range group {
			if _, ok := order[d.name]; !ok {
				order[d.name] = i
				i++
			}
		}
	}
	sort.Slice(names, func(a, b int) bool { return order[names[a]] < order[names[b]] })
	var heads, lines []string
	for _, e := range extra {
		heads, lines = append(heads, "      "+e[0]), append(lines, e[1])
	}
	for _, n := range names {
		f := fs.Lookup(n)
		kind, _ := flag.UnquoteUsage(f)
		switch {
		case isBool(f):
			kind = ""
		case kind == "value":
			kind = "NAME"
		}
		head := "      --" + n
		if kind != "" {
			head += " " + kind
		}
		line := f.Usage
		if d := f.DefValue; d != "" && d != "0" && d != "0s" && d != "false" && d != "none" && d != "failures" &&
			d != "single-producer" && d != "sync-cycle" && d != "fifo" && d != "por" {
			line += fmt.Sprintf(" (default %s)", d)
		}
		heads, lines = append(heads, head), append(lines, line)
	}
	heads, lines = append(heads, "  -h, --help"), append(lines, "help for "+command)
	return FlagLines(heads, lines)
}

// FlagLines lays out a flag reference as cobra's help does: the flags in a
// column, their descriptions three spaces after the longest.
func FlagLines(heads, lines []string) string {
	width := 0
	for _, h := range heads {
		width = max(width, len(h))
	}
	var b strings.Builder
	for i, h := range heads {
		fmt.Fprintf(&b, "%-*s   %s\n", width, h, lines[i])
	}
	return b.String()
}

func isBool(f *flag.Flag) bool {
	bf, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && bf.IsBoolFlag()
}

func newSettings(defaults engine.Options) *settings {
	s := &settings{opts: defaults, progress: true, dockerImage: "postgres:16", repeat: 1, reductionCheck: search.DefaultReductionCheck, pauseAt: -1}
	s.criticalPair = engine.DefaultMaxReversals
	if defaults.Output.Reversals > 0 {
		s.criticalPair = defaults.Output.Reversals
	} else if defaults.Output.Reversals < 0 {
		s.criticalPair = 0
	}
	if defaults.Search.ReductionCheck > 0 {
		s.reductionCheck = defaults.Search.ReductionCheck
	} else if defaults.Search.ReductionCheck < 0 {
		s.reductionCheck = 0
	}
	if s.opts.AttemptTimeout == 0 {
		s.opts.AttemptTimeout = 30 * time.Second
	}
	return s
}

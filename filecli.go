package interleave

import (
	"io"
	"strconv"

	"github.com/spf13/pflag"
)

// RunCLIWithOptions is RunCLI for scenarios that are not Go programs (a
// scenario file): run, replay and minimize start from defaults. Its
// Connections, ProtocolProfile, AttemptTimeout, MaxAttempts, MaxTime,
// MaxDepth, Overlap and Strategy become the defaults of the matching flags
// (flags given in args win), and its SourceFiles and SourceRoot are
// fingerprinted, so that an exact replay reports a changed file as
// incompatible. The flags and output are those of RunCLI.
func RunCLIWithOptions(args []string, stdout, stderr io.Writer, defaults Options, scenarios ...Scenario) int {
	base := Options{SourceFiles: defaults.SourceFiles, SourceRoot: defaults.SourceRoot}
	return runCLI(args, stdout, stderr, base, defaults, scenarios)
}

// applyDefaults makes d's settings the defaults of the flags in fs that
// exist there.
func applyDefaults(fs *pflag.FlagSet, d Options) {
	set := func(name, v string) {
		if f := fs.Lookup(name); f != nil {
			_ = f.Value.Set(v)
			f.DefValue = v
		}
	}
	if d.Connections != "" {
		set("connections", d.Connections)
	}
	if d.ProtocolProfile != "" {
		set("protocol-profile", d.ProtocolProfile)
	}
	if d.AttemptTimeout > 0 {
		set("attempt-timeout", d.AttemptTimeout.String())
	}
	if d.MaxAttempts > 0 {
		set("max-runs", strconv.Itoa(d.MaxAttempts))
	}
	if d.MaxTime > 0 {
		set("max-time", d.MaxTime.String())
	}
	if d.MaxDepth > 0 {
		set("max-depth", strconv.Itoa(d.MaxDepth))
	}
	if d.Overlap != "" {
		set("overlap", d.Overlap)
	}
	if d.Strategy != "" {
		set("strategy", d.Strategy)
	}
}

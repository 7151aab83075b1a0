package engine

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/pginterleave/interleave/netproxy"
	"github.com/pginterleave/interleave/pgserver"
	"github.com/pginterleave/interleave/search"
)

// Options configure where and how attempts run. The zero value is usable: a
// managed throwaway PostgreSQL from local binaries, the default profiles, a
// breadth-first search with partial-order reduction and no budgets, one
// worker per CPU, wire captures kept for failures, no artifact written.
type Options struct {
	Server  ServerOptions
	Proxy   ProxyOptions
	Search  search.Options
	Capture CaptureOptions
	Output  OutputOptions
	Source  SourceOptions
	// AttemptTimeout bounds one attempt; a hang becomes inconclusive
	// (0: 30s).
	AttemptTimeout time.Duration
}

// ServerOptions say where PostgreSQL comes from. The first that is set
// wins: Use, Provider, DatabaseURL (or $TEST_DATABASE_URL), then the
// managed server from local binaries.
type ServerOptions struct {
	// Use is an already running server (for example one shared by many
	// tests); the caller closes it.
	Use pgserver.Server
	// Provider starts a throwaway server some other way (a container, see
	// package pgserver/docker) and stops it when the run ends.
	Provider pgserver.Provider
	// DatabaseURL is a dedicated test server: Interleave creates and drops
	// only databases named interleave_<16 hex> on it.
	DatabaseURL string
	// PGBin is the directory with initdb and postgres for the managed server
	// (default: $INTERLEAVE_PG_BIN, PATH, pg_config, the usual places).
	PGBin string
	// TLS makes proxies reach the server over TLS, verified in full against
	// the system roots or CA (a PEM file). With the managed server it turns
	// ssl on with a throwaway CA.
	TLS bool
	CA  string
}

// ProxyOptions say how actors' connections are framed and gated.
type ProxyOptions struct {
	// Connections is SingleProducer (default: one connection at a time per
	// actor) or MultiProducer (connection pools).
	Connections Connections
	// Protocol is the protocol profile: netproxy.SyncCycle (default) or
	// netproxy.FlushStages.
	Protocol netproxy.Profile
	// MaxMessage bounds one client message (and one release unit) in bytes
	// (0: 256 MiB).
	MaxMessage int
	// Settle is the quiet time that ends a multi-producer actor's turn
	// (0: 5ms).
	Settle time.Duration
	// FreshSessions gives every actor connection a new backend. By
	// default an actor's session whose client ended cleanly is reset with
	// DISCARD ALL and handed to the same actor's next connection with the
	// same start-up (netproxy.Sessions), which saves a backend's start-up
	// and exit per connection (about half an attempt of the counter). Code
	// that depends on a fresh backend (its pid, state DISCARD ALL does not
	// reset) sets it. A search that releases pairs of units together
	// (Search.Overlap pairs) always starts new backends.
	FreshSessions bool
}

// CaptureOptions say which wire captures are kept.
type CaptureOptions struct {
	// Mode is CaptureFailures (default), CaptureAll or CaptureOff.
	Mode CaptureMode
	// Secrets are removed wherever they occur in what is kept and shown
	// (the wire capture and its SQL, parameters and server messages
	// included), as the server's password always is.
	Secrets []string
}

// OutputOptions say what is written and who hears about progress.
type OutputOptions struct {
	// Out is where the artifact is written ("" writes none); Force allows
	// overwriting it.
	Out   string
	Force bool
	// OnProgress, when set, is called after every attempt of a search.
	OnProgress func(search.Progress)
	// Reversals bounds the attempts a search, a run or minimize spends,
	// after it saves a failure, on the failure's critical pair: the failing
	// order with two dependent commands swapped, everything else kept, run
	// until one passes (0: DefaultMaxReversals; negative: none, and the
	// artifact names the anomaly only).
	Reversals int
}

// SourceOptions name what the fingerprint covers for exact replay: a Go
// program's package directory (Main fills it in), or the files of a scenario
// that is not a Go program, recorded relative to Root.
type SourceOptions struct {
	ProgramDir string
	Files      []string
	Root       string
	// Runtime names a scenario's own runtime ("Node.js v20.20.2"); exact
	// replay requires the same.
	Runtime string
}

// Connections is the connection profile.
type Connections string

// Connection profiles.
const (
	SingleProducer Connections = ""               // one command-producing connection at a time per actor
	MultiProducer  Connections = "multi-producer" // several (connection pools)
)

// ParseConnections reads a connection profile name.
func ParseConnections(s string) (Connections, error) {
	switch s {
	case "", "single-producer", "single-producer-v1":
		return SingleProducer, nil
	case "multi-producer", "multi-producer-v1":
		return MultiProducer, nil
	}
	return "", fmt.Errorf("unknown connection profile %q (known: single-producer, multi-producer)", s)
}

func (c Connections) String() string {
	if c == SingleProducer {
		return "single-producer"
	}
	return string(c)
}

// Set implements flag.Value.
func (c *Connections) Set(v string) (err error) { *c, err = ParseConnections(v); return err }

// CaptureMode says which wire captures are kept.
type CaptureMode string

// Capture modes.
const (
	CaptureFailures CaptureMode = ""    // failing attempts (and harness errors)
	CaptureAll      CaptureMode = "all" // every attempt
	CaptureOff      CaptureMode = "off" // none
)

// ParseCaptureMode reads a capture mode name.
func ParseCaptureMode(s string) (CaptureMode, error) {
	switch s {
	case "", "failures":
		return CaptureFailures, nil
	case "all":
		return CaptureAll, nil
	case "off":
		return CaptureOff, nil
	}
	return "", fmt.Errorf("unknown capture mode %q (known: failures, all, off)", s)
}

func (m CaptureMode) String() string {
	if m == CaptureFailures {
		return "failures"
	}
	return string(m)
}

// Set implements flag.Value.
func (m *CaptureMode) Set(v string) (err error) { *m, err = ParseCaptureMode(v); return err }

// OptionError names the option that is wrong, as a Go user spells it
// (Options.Search.Workers); the command line maps it to its flag.
type OptionError struct {
	Field string // Options.Search.Workers
	Msg   string // "cannot be negative"
}

func (e *OptionError) Error() string { return e.Field + " " + e.Msg }

// withDefaults fills in every default in one place and validates.
func (o Options) withDefaults() (Options, error) {
	if o.Server.DatabaseURL == "" && o.Server.Use == nil && o.Server.Provider == nil {
		o.Server.DatabaseURL = os.Getenv("TEST_DATABASE_URL")
	}
	if err := o.validate(); err != nil {
		return o, err
	}
	if o.AttemptTimeout == 0 {
		o.AttemptTimeout = 30 * time.Second
	}
	if o.Output.Reversals == 0 {
		o.Output.Reversals = DefaultMaxReversals
	}
	s := &o.Search
	s.Strategy, _ = search.ParseStrategy(string(s.Strategy))
	if s.Seed == 0 && s.Strategy.Sampled() {
		s.Seed = time.Now().UnixNano() & 0x7fffffff
	}
	if s.Workers == 0 {
		s.Workers = runtime.NumCPU()
	}
	if s.MaxFaults == 0 {
		s.MaxFaults = 1
	}
	return o, nil
}

// maxWorkers bounds parallel attempts: each holds a database and up to ~40
// server connections.
const maxWorkers = 64

func (o *Options) validate() error {
	bad := func(field, msg string, args ...any) error {
		return &OptionError{Field: "Options." + field, Msg: fmt.Sprintf(msg, args...)}
	}
	s := o.Search
	if _, err := search.ParseStrategy(string(s.Strategy)); err != nil {
		return bad("Search.Strategy", "is %q; known: %s", s.Strategy, strings.Join(search.StrategyNames(), ", "))
	}
	if _, err := search.ParseOverlap(string(s.Overlap)); err != nil {
		return bad("Search.Overlap", "is %q; known: none, pairs", s.Overlap)
	}
	if _, err := search.ParseReduction(string(s.Reduction)); err != nil {
		return bad("Search.Reduction", "is %q; known: por, none", s.Reduction)
	}
	if _, err := ParseConnections(string(o.Proxy.Connections)); err != nil {
		return bad("Proxy.Connections", "is %q; known: single-producer, multi-producer", o.Proxy.Connections)
	}
	if _, err := ParseCaptureMode(string(o.Capture.Mode)); err != nil {
		return bad("Capture.Mode", "is %q; known: failures, all, off", o.Capture.Mode)
	}
	for _, c := range []struct {
		field string
		v     int64
	}{
		{"Search.MaxAttempts", int64(s.MaxAttempts)}, {"Search.MaxTime", int64(s.MaxTime)}, {"Search.MaxDepth", int64(s.MaxDepth)},
		{"Search.Depth", int64(s.Depth)}, {"Search.FrontierBytes", int64(s.FrontierBytes)}, {"Search.PairRepeats", int64(s.PairRepeats)},
		{"AttemptTimeout", int64(o.AttemptTimeout)}, {"Proxy.MaxMessage", int64(o.Proxy.MaxMessage)}, {"Proxy.Settle", int64(o.Proxy.Settle)},
	} {
		if c.v < 0 {
			return bad(c.field, "cannot be negative")
		}
	}
	if s.Workers < 0 || s.Workers > maxWorkers {
		return bad("Search.Workers", "is %d; it must be between 1 and %d (0: one per CPU)", s.Workers, maxWorkers)
	}
	if s.Shards < 0 || (s.Shards > 0 && (s.Shard < 1 || s.Shard > s.Shards)) || (s.Shards == 0 && s.Shard != 0) {
		return bad("Search.Shard", "is %d of %d; it must be between 1 and Shards", s.Shard, s.Shards)
	}
	return o.validateFaults(bad)
}

// profiles names the connection and protocol profiles for the fingerprint.
func (o *Options) profiles() string {
	return "connections=" + o.Proxy.Connections.String() + " protocol=" + o.Proxy.Protocol.String()
}

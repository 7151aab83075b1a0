package interleave

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/pginterleave/interleave/netproxy"
	"github.com/pginterleave/interleave/pgserver"
	"github.com/pginterleave/interleave/search"
)

// Options configure where and how attempts run. The zero value is usable:
// a managed throwaway PostgreSQL from local binaries, the default profiles,
// a FIFO search with no attempt or time budget.
type Options struct {
	// DatabaseURL selects a dedicated test server instead of the managed
	// default; Interleave creates and drops only databases named
	// interleave_<hex> on it. Empty also consults TEST_DATABASE_URL.
	DatabaseURL string
	// PGBin is the directory with initdb and postgres for the managed server.
	PGBin string
	// Docker starts the throwaway server as a container through the Docker
	// API instead of from local binaries; DockerImage picks the image
	// (default postgres:16).
	Docker      bool
	DockerImage string
	// ProgramDir is the scenario program's package directory; its package
	// graph's sources are fingerprinted for exact replay. Main fills it in.
	ProgramDir string
	// SourceFiles are fingerprinted instead when the scenario is not a Go
	// program (a scenario file, the files it names, lockfiles beside them);
	// paths are recorded relative to SourceRoot.
	SourceFiles []string
	SourceRoot  string
	// Server, when set, is an already running server to use (for example one
	// shared by many tests); the caller closes it. It wins over DatabaseURL.
	Server pgserver.Server

	// UpstreamTLS makes proxies reach the server over TLS, verified in full
	// against the system roots or UpstreamCA (a PEM file). With the managed
	// server it turns on ssl with a throwaway CA.
	UpstreamTLS bool
	UpstreamCA  string

	// Connections is "single-producer" (default: one connection at a time
	// per actor) or "multi-producer" (connection pools).
	Connections string
	// ProtocolProfile is "sync-cycle" (default) or "flush-stages".
	ProtocolProfile string
	// MaxMessage bounds one client message (and one release unit) in bytes;
	// 0 means 256 MiB.
	MaxMessage int
	// AttemptTimeout bounds one attempt; a hang becomes inconclusive.
	// Zero means 30s.
	AttemptTimeout time.Duration
	// Settle is the quiet time that ends a multi-producer actor's turn.
	Settle time.Duration

	// Search budgets. Zero means unlimited.
	MaxAttempts int
	MaxTime     time.Duration
	MaxDepth    int
	// KeepGoing continues after the first violation.
	KeepGoing bool
	// Strategy is "fifo" (default: fewest choices first), "dfs", "random" or
	// "pct". Seed feeds random and pct (0: drawn from the clock, printed and
	// recorded); Depth is PCT's bug depth (default 2).
	Strategy string
	Seed     int64
	Depth    int
	// Overlap is "" or "pairs": the search may also release two pending
	// units of different actors together and let PostgreSQL interleave them.
	Overlap string
	// Workers is the number of attempts run in parallel, each on its own
	// database (0: one per CPU).
	Workers int
	// FrontierBytes bounds the memory of pending prefixes (0: 256 MiB).
	FrontierBytes int
	// Progress enables the live status line on a terminal.
	Progress bool
	// Order, when set, makes RunOnce release the actors' executing units in
	// this order instead of the default one.
	Order []OrderStep
	// OnProgress, when set, is called after every attempt of a search.
	OnProgress func(search.Progress)
	// Shard K of Shards explores a disjoint part of the search (see
	// search.Options); merge the shards' summaries with MergeSummaries.
	Shard, Shards int

	// Capture is "failures" (default: keep the wire capture of failing
	// attempts), "all" or "off".
	Capture string

	// Out is where a failing artifact is written ("" writes none); Force
	// allows overwriting it.
	Out   string
	Force bool

	// Stdout receives summaries (default os.Stdout); Stderr receives
	// progress and diagnostics (default os.Stderr).
	Stdout io.Writer
	Stderr io.Writer
}

func (o *Options) withDefaults() Options {
	c := *o
	if c.DatabaseURL == "" {
		c.DatabaseURL = os.Getenv("TEST_DATABASE_URL")
	}
	if c.AttemptTimeout == 0 {
		c.AttemptTimeout = 30 * time.Second
	}
	if c.Strategy == "" {
		c.Strategy = "fifo"
	}
	if c.Seed == 0 && (c.Strategy == "random" || c.Strategy == "pct") {
		c.Seed = time.Now().UnixNano() & 0x7fffffff
	}
	if c.Workers <= 0 {
		c.Workers = runtime.NumCPU()
	}
	if c.Stdout == nil {
		c.Stdout = os.Stdout
	}
	if c.Stderr == nil {
		c.Stderr = os.Stderr
	}
	return c
}

func (o *Options) validate() error {
	switch o.Connections {
	case "", "single-producer", "multi-producer", "multi-producer-v1":
	default:
		return fmt.Errorf("unknown connection profile %q (known: single-producer, multi-producer)", o.Connections)
	}
	switch o.Capture {
	case "", "failures", "all", "off":
	default:
		return fmt.Errorf("unknown capture mode %q (known: failures, all, off)", o.Capture)
	}
	if _, err := netproxy.ParseProfile(o.ProtocolProfile); err != nil {
		return err
	}
	switch o.Overlap {
	case "", "none", "pairs":
	default:
		return fmt.Errorf("unknown overlap %q (known: pairs)", o.Overlap)
	}
	switch o.Strategy {
	case "", "fifo", "dfs", "random", "pct":
	default:
		return fmt.Errorf("unknown strategy %q (known: fifo, dfs, random, pct)", o.Strategy)
	}
	if o.MaxAttempts < 0 || o.MaxDepth < 0 || o.MaxTime < 0 || o.AttemptTimeout < 0 || o.Workers < 0 || o.Depth < 0 {
		return fmt.Errorf("budgets cannot be negative")
	}
	return nil
}

func (o *Options) multiProducer() bool {
	return o.Connections == "multi-producer" || o.Connections == "multi-producer-v1"
}

// profiles names the connection and protocol profiles for the fingerprint.
func (o *Options) profiles() string {
	conns := "single-producer"
	if o.multiProducer() {
		conns = "multi-producer"
	}
	p, _ := netproxy.ParseProfile(o.ProtocolProfile)
	return "connections=" + conns + " protocol=" + p.String()
}

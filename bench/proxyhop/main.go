//go:build linux

package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/pginterleave/interleave/pgserver"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "serve-gated" {
		os.Exit(serveGated(os.Args[2:]))
	}
	var o options
	flag.IntVar(&o.seconds, "seconds", 8, "seconds per pgbench run")
	flag.IntVar(&o.rounds, "rounds", 3, "rounds; each measures every path once per protocol")
	flag.IntVar(&o.idle, "idle", 200, "idle connections opened through each proxy to measure its memory")
	flag.StringVar(&o.toxiproxy, "toxiproxy", "v2.5.0", "Toxiproxy version to build from the Go module proxy")
	flag.StringVar(&o.only, "only", "", "comma-separated paths to measure (default all): direct,pgbouncer,toxiproxy,passthrough,capture,gated; passthrough-1p and gated-1p (GOMAXPROCS=1) only when named")
	flag.BoolVar(&o.noThroughput, "no-throughput", false, "skip the 16-client runs")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintf(os.Stderr, "proxyhop: %v\n", err)
		os.Exit(1)
	}
}

type options struct {
	seconds, rounds, idle int
	toxiproxy, only       string
	noThroughput          bool
}

func (o options) want(name string) bool {
	if o.only == "" || name == "direct" {
		return true
	}
	for _, n := range strings.Split(o.only, ",") {
		if strings.TrimSpace(n) == name {
			return true
		}
	}
	return false
}

// explicit reports whether -only names path (experiments run only then).
func (o options) explicit(name string) bool { return o.only != "" && o.want(name) }

func run(ctx context.Context, o options) error {
	tmp, err := os.MkdirTemp("", "proxyhop-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	logf("starting a managed PostgreSQL")
	srv, err := pgserver.StartLocal(ctx, pgserver.LocalOptions{MaxConnections: 2*o.idle + 100})
	if err != nil {
		return err
	}
	defer srv.Close()
	pgbench, err := findPgbench()
	if err != nil {
		return err
	}
	script := filepath.Join(tmp, "select1.sql")
	if err := os.WriteFile(script, []byte("SELECT 1;\n"), 0o644); err != nil {
		return err
	}
	paths, err := startPaths(ctx, o, tmp, srv)
	defer func() {
		for _, p := range paths {
			p.stop()
		}
	}()
	if err != nil {
		return err
	}
	b := &bencher{pgbench: pgbench, script: script, seconds: o.seconds, logDir: tmp}
	res := newResults(paths)
	for r := 0; r < o.rounds; r++ {
		for _, mode := range []string{"simple", "extended"} {
			for _, p := range rotate(paths, r) {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				m, err := b.latency(ctx, p, mode)
				if err != nil {
					return fmt.Errorf("%s, %s protocol: %w", p.name, mode, err)
				}
				res.add(p.name, mode, r, m)
				logf("round %d %-8s %-30s median %6.1f µs  average %6.1f µs  proxy cpu %5.1f µs/query", r+1, mode, p.name, m.latencyUS, m.averageUS, m.cpuUS)
			}
		}
		if o.noThroughput {
			continue
		}
		for _, p := range rotate(paths, r) {
			if p.gated {
				continue // the scheduler serialises its actor's connections by design
			}
			m, err := b.throughput(ctx, p, 16)
			if err != nil {
				return fmt.Errorf("%s, 16 clients: %w", p.name, err)
			}
			res.add(p.name, "16 clients", r, m)
			logf("round %d 16 clients %-30s %9.0f tps", r+1, p.name, m.tps)
		}
	}
	for _, p := range paths {
		if p.pid() == 0 || p.gated {
			continue
		}
		kib, err := idleMemory(ctx, p, o.idle)
		if err != nil {
			return fmt.Errorf("%s, idle connections: %w", p.name, err)
		}
		res.idleKiB[p.name] = kib
		logf("idle %-24s %6.1f KiB per connection", p.name, kib)
	}
	res.print(os.Stdout, o, srv.Version(), time.Now())
	return nil
}

// rotate returns paths starting at a different one each round.
func rotate(paths []*path, r int) []*path {
	n := len(paths)
	out := make([]*path, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, paths[(i+r)%n])
	}
	return out
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

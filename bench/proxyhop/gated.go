//go:build linux

package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"

	"github.com/pginterleave/interleave/netproxy"
	"github.com/pginterleave/interleave/sched"
)

// serveGated is the gated path's process: one proxy gated by a scheduled
// attempt with one actor, as a scenario attempt runs an actor's proxy
// (quiescence, a decision per unit, lock-wait polling of units that run
// long). With one actor every pending unit is released at once, so what is
// measured is the hop and the hand-offs, not waiting. It prints "listening
// on ADDR, ..." and serves until SIGTERM.
//
// args: upstream host:port, a connection string for the lock monitor.
// PROXYHOP_CPUPROFILE=FILE writes a CPU profile of the process.
func serveGated(args []string) int {
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: proxyhop serve-gated HOST:PORT MONITOR-URL")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if f := os.Getenv("PROXYHOP_CPUPROFILE"); f != "" {
		// Profile the gated proxy: where a unit's time goes.
		out, err := os.Create(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer out.Close()
		if err := pprof.StartCPUProfile(out); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	mon, err := sched.NewPGMonitor(ctx, args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer mon.Close(context.Background())
	at := sched.New(sched.Config{Actors: []string{"pgbench"}, Monitor: mon})
	p, err := netproxy.Listen(netproxy.Config{
		Dial: func(ctx context.Context) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "tcp", args[0])
		},
		Gate: at.Gate(0),
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	done := make(chan error, 1)
	go func() { done <- at.Run(ctx) }()
	fmt.Fprintf(os.Stderr, "listening on %s, forwarding to %s (gated)\n", p.Addr(), args[0])
	<-ctx.Done()
	p.Close()
	at.ActorDone(0)
	<-done
	return 0
}

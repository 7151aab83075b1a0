package bench

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/pginterleave/interleave/netproxy"
	"github.com/pginterleave/interleave/sched"
)

// BenchmarkGatedRelease compares, per unit, the proxy gated by a scheduled
// attempt with the passthrough proxy, as a scenario attempt runs them: the
// actor's client (pgconn) in the same process as the proxies and the
// scheduler. The three paths alternate in one loop; it reports medians, which
// a shared machine's stalls move less than means.
//
//	go test -run '^$' -bench GatedRelease -benchtime 20000x ./bench
func BenchmarkGatedRelease(b *testing.B) {
	ctx := context.Background()
	direct := connectVia(b, server.Port())
	pass, err := netproxy.Listen(netproxy.Config{Dial: dialServer, Passthrough: true})
	if err != nil {
		b.Fatal(err)
	}
	defer pass.Close()
	passConn := connectVia(b, pass.Addr().Port)

	mon, err := sched.NewPGMonitor(ctx, server.ConnString("postgres"))
	if err != nil {
		b.Fatal(err)
	}
	defer mon.Close(ctx)
	at := sched.New(sched.Config{Actors: []string{"a"}, Monitor: mon})
	gated, err := netproxy.Listen(netproxy.Config{Dial: dialServer, Gate: at.Gate(0)})
	if err != nil {
		b.Fatal(err)
	}
	defer gated.Close()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- at.Run(runCtx) }()
	gatedConn := connectVia(b, gated.Addr().Port)

	td := make([]time.Duration, 0, b.N)
	tp := make([]time.Duration, 0, b.N)
	tg := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		td = append(td, roundTrip(b, direct))
		tp = append(tp, roundTrip(b, passConn))
		tg = append(tg, roundTrip(b, gatedConn))
	}
	b.StopTimer()
	d, p, g := medianDuration(td), medianDuration(tp), medianDuration(tg)
	b.ReportMetric(float64(d.Nanoseconds()), "direct-median-ns")
	b.ReportMetric(float64(p.Nanoseconds()), "passthrough-median-ns")
	b.ReportMetric(float64(g.Nanoseconds()), "gated-median-ns")
	b.ReportMetric(float64(g)/float64(p), "gated/passthrough")
	gatedConn.Close(ctx)
	at.ActorDone(0)
	stop()
	<-done
}

func medianDuration(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

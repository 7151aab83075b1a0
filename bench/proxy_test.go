package bench

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pginterleave/interleave/capture"
	"github.com/pginterleave/interleave/netproxy"
	"github.com/pginterleave/interleave/sched"
)

// openGate releases every unit at once: the proxy's own cost.
type openGate struct{}

func (openGate) Attach(netproxy.ConnInfo) (netproxy.ConnGate, error) { return openGate{}, nil }
func (openGate) Cancel(uint32, bool)                                 {}
func (openGate) Starting(int)                                        {}
func (openGate) StartFailed(int, error)                              {}
func (openGate) Await(context.Context, *netproxy.Unit) error         { return nil }
func (openGate) Complete(*netproxy.Result)                           {}
func (openGate) Closed(error)                                        {}

func dialServer(ctx context.Context) (net.Conn, error) {
	ep := server.Endpoint()
	return (&net.Dialer{}).DialContext(ctx, ep.Network, ep.Address)
}

func connectVia(b *testing.B, port int) *pgconn.PgConn {
	c, err := pgconn.Connect(context.Background(), fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func roundTrip(b *testing.B, c *pgconn.PgConn) time.Duration {
	start := time.Now()
	if _, err := c.Exec(context.Background(), "SELECT 1").ReadAll(); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

// BenchmarkProxyOverhead measures one simple-protocol round trip ("SELECT 1")
// five ways, interleaved in the same loop so that machine noise hits all of
// them alike: directly over loopback TCP (the baseline), through the proxy
// with a gate that releases at once (passthrough), and through the proxy
// gated by the scheduler (quiescence, decision, lock-wait polling), and
// passthrough with capture on. It reports ratios: each to the direct round
// trip, and capture on to capture off.
func BenchmarkProxyOverhead(b *testing.B) {
	ctx := context.Background()
	direct := connectVia(b, server.Port())

	pass, err := netproxy.Listen(netproxy.Config{Dial: dialServer, Gate: openGate{}})
	if err != nil {
		b.Fatal(err)
	}
	defer pass.Close()
	passConn := connectVia(b, pass.Addr().Port)

	arena := capture.NewArena()
	captured, err := netproxy.Listen(netproxy.Config{Dial: dialServer, Gate: openGate{}, Recorder: arena.Recorder(0)})
	if err != nil {
		b.Fatal(err)
	}
	defer captured.Close()
	capConn := connectVia(b, captured.Addr().Port)

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

	var td, tp, tc, tg time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		td += roundTrip(b, direct)
		tp += roundTrip(b, passConn)
		tc += roundTrip(b, capConn)
		tg += roundTrip(b, gatedConn)
		if i%10000 == 0 {
			arena.Reset() // as every attempt does
		}
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(td.Nanoseconds())/n, "direct-ns/op")
	b.ReportMetric(float64(tp.Nanoseconds())/n, "passthrough-ns/op")
	b.ReportMetric(float64(tg.Nanoseconds())/n, "gated-ns/op")
	b.ReportMetric(float64(tp)/float64(td), "passthrough/direct")
	b.ReportMetric(float64(tc)/float64(tp), "captured/passthrough")
	b.ReportMetric(float64(tg)/float64(td), "gated/direct")
	gatedConn.Close(ctx)
	at.ActorDone(0)
	stop()
	<-done
}

// BenchmarkProxyAllocs reports allocations per proxied round trip in steady
// state (the client side's allocations included; compare with direct).
func BenchmarkProxyAllocs(b *testing.B) {
	pass, err := netproxy.Listen(netproxy.Config{Dial: dialServer, Gate: openGate{}})
	if err != nil {
		b.Fatal(err)
	}
	defer pass.Close()
	for _, tc := range []struct {
		name string
		port int
	}{{"direct", server.Port()}, {"proxied", pass.Addr().Port}} {
		b.Run(tc.name, func(b *testing.B) {
			c := connectVia(b, tc.port)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				roundTrip(b, c)
			}
		})
	}
}

package sched

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pginterleave/interleave/netproxy"
)

// fakeMonitor reports the pids in blocked as waiting on actors.
type fakeMonitor struct {
	mu      sync.Mutex
	blocked map[uint32][]uint32
	polls   int
}

func (m *fakeMonitor) Waits(_ context.Context, pids, _ []uint32) ([]Wait, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.polls++
	var out []Wait
	for _, p := range pids {
		if b, ok := m.blocked[p]; ok {
			out = append(out, Wait{PID: p, ByActors: len(b) > 0, Blockers: b})
		}
	}
	return out, nil
}

// actor drives one lane like a driver would: each unit waits at the gate,
// then "executes" and completes.
func actor(t *testing.T, a *Attempt, i int, units int, order *[]string, mu *sync.Mutex) {
	g, err := a.Gate(i).Attach(netproxy.ConnInfo{Ordinal: 0, BackendPID: uint32(100 + i)})
	if err != nil {
		t.Error(err)
		return
	}
	for u := 0; u < units; u++ {
		if err := g.Await(context.Background(), &netproxy.Unit{Kind: netproxy.KindSimple, Ordinal: u, Bytes: []byte{'Q', byte(i), byte(u)}, Types: []byte("Q")}); err != nil {
			t.Error(err)
			return
		}
		mu.Lock()
		*order = append(*order, fmt.Sprintf("%c%d", 'a'+i, u+1))
		mu.Unlock()
		g.Complete(&netproxy.Result{TxStatus: 'I'})
	}
	g.Closed(nil)
	a.ActorDone(i)
}

func TestFIFOInterleavesAtQuiescence(t *testing.T) {
	for run := 0; run < 20; run++ {
		a := New(Config{Actors: []string{"a", "b"}, Monitor: &fakeMonitor{}})
		var mu sync.Mutex
		var order []string
		var wg sync.WaitGroup
		for i := 0; i < 2; i++ {
			wg.Add(1)
			go func(i int) { defer wg.Done(); actor(t, a, i, 2, &order, &mu) }(i)
		}
		if err := a.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		if got := strings.Join(order, " "); got != "a1 b1 a2 b2" {
			t.Fatalf("run %d: order %s, want the FIFO order a1 b1 a2 b2", run, got)
		}
		r := a.Result()
		if len(r.Decisions) != 4 || r.Decisions[0].Choice || len(r.Decisions[1].Candidates) != 2 {
			t.Fatalf("decisions %+v", r.Decisions)
		}
	}
}

type pickLast struct{}

func (pickLast) Choose(_ int, c []Candidate) ([]int, error) { return []int{len(c) - 1}, nil }

func TestPolicyChoicesAreRecorded(t *testing.T) {
	a := New(Config{Actors: []string{"a", "b"}, Monitor: &fakeMonitor{}, Policy: pickLast{}})
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func(i int) { defer wg.Done(); actor(t, a, i, 2, &order, &mu) }(i)
	}
	if err := a.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if got := strings.Join(order, " "); got != "b1 b2 a1 a2" {
		t.Fatalf("order %s", got)
	}
	choices := 0
	for _, d := range a.Result().Decisions {
		if d.Choice {
			choices++
		}
	}
	if choices != 2 {
		t.Fatalf("%d choices recorded, want 2 (the first two decisions picked the second candidate)", choices)
	}
}

// A released unit PostgreSQL reports as blocked counts as quiescent: the
// other actor's unit is released while it waits.
func TestBlockedUnitLetsOthersRun(t *testing.T) {
	mon := &fakeMonitor{blocked: map[uint32][]uint32{}}
	a := New(Config{Actors: []string{"a", "b"}, Monitor: mon})
	ga, _ := a.Gate(0).Attach(netproxy.ConnInfo{BackendPID: 100})
	gb, _ := a.Gate(1).Attach(netproxy.ConnInfo{BackendPID: 101})
	done := make(chan error, 1)
	go func() { done <- a.Run(context.Background()) }()
	unit := func(o int) *netproxy.Unit {
		return &netproxy.Unit{Kind: netproxy.KindSimple, Ordinal: o, Bytes: []byte{'Q', byte(o)}, Types: []byte("Q")}
	}
	// a's first unit is released and "blocks" on b.
	mon.mu.Lock()
	mon.blocked[100] = []uint32{101}
	mon.mu.Unlock()
	released := make(chan string, 4)
	go func() {
		if ga.Await(context.Background(), unit(0)) == nil {
			released <- "a1"
		}
	}()
	go func() {
		if gb.Await(context.Background(), unit(0)) == nil {
			released <- "b1"
		}
	}()
	var got []string
	for len(got) < 2 {
		select {
		case r := <-released:
			got = append(got, r)
		case <-time.After(10 * time.Second):
			t.Fatalf("released %v; b1 must be released while a1 waits on a lock", got)
		}
	}
	if strings.Join(got, " ") != "a1 b1" {
		t.Fatalf("released %v", got)
	}
	mon.mu.Lock()
	delete(mon.blocked, 100)
	mon.mu.Unlock()
	gb.Complete(&netproxy.Result{TxStatus: 'I'})
	ga.Complete(&netproxy.Result{TxStatus: 'I'})
	a.ActorDone(0)
	a.ActorDone(1)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, u := range a.Result().Units {
		if u.Ref.Actor == 0 && (len(u.LockWaits) != 1 || u.LockWaits[0].Blockers[0] != 1) {
			t.Fatalf("lock wait of a1 not recorded as blocked by b: %+v", u.LockWaits)
		}
	}
}

func TestForeignBlockerIsInconclusive(t *testing.T) {
	mon := &fakeMonitor{blocked: map[uint32][]uint32{}}
	a := New(Config{Actors: []string{"a", "b"}, Monitor: foreign{mon}})
	ga, _ := a.Gate(0).Attach(netproxy.ConnInfo{BackendPID: 100})
	a.ActorDone(1)
	done := make(chan error, 1)
	go func() { done <- a.Run(context.Background()) }()
	go ga.Await(context.Background(), query())
	select {
	case err := <-done:
		if !errors.Is(err, ErrInconclusive) || !strings.Contains(err.Error(), "not an actor") {
			t.Fatalf("error %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a unit blocked by a foreign session did not end the attempt")
	}
}

// foreign reports every polled pid as waiting on pid 999, which is not an actor.
type foreign struct{ *fakeMonitor }

func (foreign) Waits(_ context.Context, pids, _ []uint32) ([]Wait, error) {
	var out []Wait
	for _, p := range pids {
		out = append(out, Wait{PID: p, Blockers: []uint32{999}})
	}
	return out, nil
}

func TestDeadlineAbortsAndExplains(t *testing.T) {
	a := New(Config{Actors: []string{"a", "b"}, Monitor: &fakeMonitor{}})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	a.ActorDone(1)
	err := a.Run(ctx) // actor a never sends anything
	if !errors.Is(err, ErrInconclusive) || !strings.Contains(err.Error(), "a was running its own code") {
		t.Fatalf("error %v", err)
	}
}

func TestSecondProducerIsRefusedWithHint(t *testing.T) {
	_, g1, g2 := twoConnections(t)
	g1.Complete(&netproxy.Result{TxStatus: 'I'})
	err := g2.Await(context.Background(), query())
	if !errors.Is(err, ErrSecondProducer) || !strings.Contains(err.Error(), "Options.Proxy.Connections multi-producer") {
		t.Fatalf("error %v", err)
	}
}

// A connection whose client has moved on to its next connection is one
// producer, not two, even when its close is reported after the next
// connection's first command (the proxy reports it once the server's side
// has ended too): the fault soak's psql actors hit this on a busy machine,
// and the search stopped with a harness error.
func TestNextConnectionWaitsForTheIdleOneToClose(t *testing.T) {
	_, g1, g2 := twoConnections(t)
	g1.Complete(&netproxy.Result{TxStatus: 'I'})
	var closed atomic.Bool
	go func() {
		time.Sleep(100 * time.Millisecond)
		closed.Store(true)
		g1.Closed(nil)
	}()
	if err := g2.Await(context.Background(), query()); err != nil {
		t.Fatalf("the next connection's command was refused: %v", err)
	}
	if !closed.Load() {
		t.Fatal("released before the first connection closed")
	}
}

// A connection that ends while its first command waits for the previous
// one (its client killed: the fault soak's SIGKILLed psql) returns its
// context's error and is no error of the attempt: the soak's search
// stopped with a harness error "context canceled" after 4,521 attempts.
func TestConnectionEndingWhileItWaitsIsNoLaneError(t *testing.T) {
	a, g1, g2 := twoConnections(t)
	g1.Complete(&netproxy.Result{TxStatus: 'I'})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(20 * time.Millisecond)
		cancel()
	}()
	err := g2.Await(ctx, query())
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Await after its connection ended: %v", err)
	}
	if err := a.LaneError(); err != nil {
		t.Fatalf("a connection that ended while waiting became the attempt's error: %v", err)
	}
}

// The same when the previous connection's last command is not yet reported
// complete: the proxy reports a completion after the client has the
// answer, so the client can be on its next connection first. A command
// waiting at the gate on the other connection is a second producer at
// once.
func TestNextConnectionWaitsForTheLastCompletion(t *testing.T) {
	_, g1, g2 := twoConnections(t)
	go func() {
		time.Sleep(50 * time.Millisecond)
		g1.Complete(&netproxy.Result{TxStatus: 'I'})
		time.Sleep(50 * time.Millisecond)
		g1.Closed(nil)
	}()
	if err := g2.Await(context.Background(), query()); err != nil {
		t.Fatalf("the next connection's command was refused: %v", err)
	}

	// Actor b never finishes its own code: nothing is released.
	b := New(Config{Actors: []string{"a", "b"}, Monitor: &fakeMonitor{}})
	h1, _ := b.Gate(0).Attach(netproxy.ConnInfo{Ordinal: 0, BackendPID: 100})
	h2, _ := b.Gate(0).Attach(netproxy.ConnInfo{Ordinal: 1, BackendPID: 101})
	go b.Run(context.Background())
	defer b.Abort(errors.New("test over"))
	go func() {
		_ = h1.Await(context.Background(), query())
	}()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		b.mu.Lock()
		pending := len(b.units) > 0
		b.mu.Unlock()
		if pending {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first connection's command never reached the gate")
		}
	}
	err := h2.Await(context.Background(), query())
	if !errors.Is(err, ErrSecondProducer) || !strings.Contains(err.Error(), "with a command waiting to be sent") {
		t.Fatalf("a second connection beside one with a command at the gate: %v; want refused at once, for the waiting command", err)
	}
}

// twoConnections is an attempt whose actor a has two connections, the
// first of which has sent a command and had it released; actor b is done.
func twoConnections(t *testing.T) (*Attempt, netproxy.ConnGate, netproxy.ConnGate) {
	t.Helper()
	a := New(Config{Actors: []string{"a", "b"}, Monitor: &fakeMonitor{}})
	g1, _ := a.Gate(0).Attach(netproxy.ConnInfo{Ordinal: 0, BackendPID: 100})
	g2, _ := a.Gate(0).Attach(netproxy.ConnInfo{Ordinal: 1, BackendPID: 101})
	a.ActorDone(1)
	go a.Run(context.Background())
	t.Cleanup(func() { a.Abort(errors.New("test over")) })
	if err := g1.Await(context.Background(), query()); err != nil {
		t.Fatal(err)
	}
	return a, g1, g2
}

// query is a simple-protocol unit.
func query() *netproxy.Unit {
	return &netproxy.Unit{Kind: netproxy.KindSimple, Bytes: []byte{'Q'}, Types: []byte("Q")}
}

// goneMonitor is a monitor whose terminate finds the backend already
// ended (pg_terminate_backend returned false), and which reports no
// backend alive.
type goneMonitor struct {
	fakeMonitor
	terminated []uint32
}

func (m *goneMonitor) Terminate(_ context.Context, pid uint32) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.terminated = append(m.terminated, pid)
	return fmt.Errorf("terminate backend %d: %w", pid, ErrBackendGone)
}

func (m *goneMonitor) Alive(context.Context, []uint32) ([]uint32, error) { return nil, nil }

// terminateFirst releases in FIFO order and terminates the first unit.
type terminateFirst struct{}

func (terminateFirst) Choose(_ int, c []Candidate) ([]int, error) { return []int{0}, nil }
func (terminateFirst) Fault(step int) Fault {
	if step == 0 {
		return Terminate
	}
	return NoFault
}

// A terminate fault whose backend had already ended (killed from outside,
// a session timeout) does not abort the attempt: the unit is reset as the
// connection ends, and the other actor runs on. The fault soak found the
// abort: "fault terminate: terminate backend N: PostgreSQL found no such
// backend" stopped the whole search.
func TestTerminateOfAnEndedBackendDoesNotAbort(t *testing.T) {
	mon := &goneMonitor{}
	a := New(Config{Actors: []string{"a", "b"}, Monitor: mon, Policy: terminateFirst{}})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var order []string
	var awaitErr atomic.Value
	wg.Add(2)
	go func() {
		defer wg.Done()
		g, err := a.Gate(0).Attach(netproxy.ConnInfo{Ordinal: 0, BackendPID: 100})
		if err != nil {
			t.Error(err)
			return
		}
		u := &netproxy.Unit{Kind: netproxy.KindSimple, Ordinal: 0, Bytes: []byte{'Q', 0, 0}, Types: []byte("Q")}
		err = g.Await(context.Background(), u)
		awaitErr.Store(fmt.Sprint(err))
		g.Closed(errors.New("the server closed the connection"))
		a.ActorDone(0)
	}()
	go func() { defer wg.Done(); actor(t, a, 1, 2, &order, &mu) }()
	if err := a.Run(context.Background()); err != nil {
		t.Fatalf("the attempt was aborted: %v", err)
	}
	wg.Wait()
	if len(mon.terminated) != 1 || mon.terminated[0] != 100 {
		t.Fatalf("terminated %v; want backend 100 once", mon.terminated)
	}
	if got := strings.Join(order, " "); got != "b1 b2" {
		t.Fatalf("b ran %q; want b1 b2", got)
	}
	t.Logf("a's Await returned %v", awaitErr.Load())
}

func TestHasCycle(t *testing.T) {
	for _, tc := range []struct {
		edges map[uint32][]uint32
		want  bool
	}{
		{map[uint32][]uint32{}, false},
		{map[uint32][]uint32{1: {2}}, false},
		{map[uint32][]uint32{1: {2}, 2: {1}}, true},
		{map[uint32][]uint32{1: {2}, 2: {3}, 3: {1}}, true},
		{map[uint32][]uint32{1: {2}, 2: {3}, 3: {4}}, false},
		{map[uint32][]uint32{1: {2, 3}, 2: {3}, 3: nil}, false},
		{map[uint32][]uint32{1: {9}, 9: nil, 2: {1}}, false},
		{map[uint32][]uint32{1: {1}}, true},
	} {
		if got := hasCycle(tc.edges); got != tc.want {
			t.Errorf("hasCycle(%v) = %v, want %v", tc.edges, got, tc.want)
		}
	}
}

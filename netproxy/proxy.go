package netproxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// Config is a proxy's wiring. Dial is required, and Gate unless
// Passthrough is set.
type Config struct {
	// Dial opens a connection to PostgreSQL, ready for a start-up packet
	// (TLS, when used upstream, is already negotiated).
	Dial func(ctx context.Context) (net.Conn, error)
	// Gate decides releases; one per actor.
	Gate Gate
	// Passthrough forwards client messages as they arrive, without release
	// units or a gate: every whole message already read goes upstream in
	// one write, so pipelined clients stay pipelined. Gate must be nil.
	// Start-up, authentication redaction, cancel routing and recording are
	// as with a gate.
	Passthrough bool
	// Addr is the listening address; empty means 127.0.0.1 at a free port.
	Addr string
	// Recorder receives every byte; nil records nothing.
	Recorder Recorder
	// Profile groups messages into units.
	Profile Profile
	// MaxMessage bounds one client message; 0 means DefaultMaxMessage.
	MaxMessage int
	// Options are PostgreSQL command-line options ("-c name=value ...")
	// every connection's backend starts with: the proxy adds them to the
	// start-up packet's options parameter, after the client's own, so that
	// they win. Drivers differ in what they do with options in a
	// connection string (bun's pgdriver turns it into a SET that fails);
	// the proxy is the one place every client passes. The recorder gets
	// the packet as the client sent it.
	Options string
	// OptionsFor, when set, gives the options of one connection from the
	// client's start-up parameters (name, value pairs) instead of
	// Options: a role that may not set an option must not be given it.
	// It is called from the connection's goroutine.
	OptionsFor func(params []string) string
	// StartupTimeout bounds the time from a connection's first byte until
	// its session is attached (start-up and authentication done, the
	// server's first ReadyForQuery forwarded): 0 means
	// DefaultStartupTimeout, negative none. Until then a client's messages
	// are bounded by maxAuthMessage, whatever MaxMessage says.
	StartupTimeout time.Duration
	// IdleTimeout, when positive, closes a connection through which
	// nothing has moved for that long: no whole client message forwarded
	// and no server bytes.
	IdleTimeout time.Duration
	// MaxBuffered, when positive, bounds what the connections buffer
	// together beyond their first 4 KiB each (a client message is read
	// whole before it is forwarded): a message that would go over it fails
	// its connection with ErrMemoryBudget. See Proxy.MemoryStats.
	MaxBuffered int64
	// Sessions, when set, keeps server sessions whose client ended
	// cleanly and gives them to later clients with the same start-up
	// packet (see Sessions); nil opens a new backend for every connection.
	Sessions *Sessions
	// SessionTag is part of what a kept session must match besides the
	// start-up packet: the caller's summary of what a backend takes from
	// the server when it starts and RESET ALL returns to (database and
	// role settings), so that a session started before they changed is
	// not handed out.
	SessionTag string
	// OnAcceptError, when set, is told of each failed Accept (out of file
	// descriptors, for example) and how long the proxy waits before it
	// accepts again. It must not block.
	OnAcceptError func(err error, retryIn time.Duration)
}

// Proxy listens on a loopback port for one actor and forwards each
// connection to PostgreSQL.
type Proxy struct {
	cfg    Config
	ln     net.Listener
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	conns   map[*conn]struct{}
	streams int
	attach  int
	keys    map[uint32][]byte // backend pid -> cancel key, for this actor's connections
	closed  bool

	budget *memoryBudget // nil: Config.MaxBuffered is not set
}

// DefaultStartupTimeout is Config.StartupTimeout's default: PostgreSQL's
// own authentication_timeout.
const DefaultStartupTimeout = time.Minute

// maxAuthMessage bounds a client message before its session is attached:
// PostgreSQL accepts authentication tokens of at most 65535 bytes
// (PG_MAX_AUTH_TOKEN_LENGTH), the rest of a message is small.
const maxAuthMessage = 128 << 10

// MemoryStats reports what the proxy's connections buffer against
// Config.MaxBuffered.
func (p *Proxy) MemoryStats() MemoryStats {
	if p.budget == nil {
		return MemoryStats{}
	}
	return MemoryStats{Limit: p.budget.limit, InUse: p.budget.used.Load(), Peak: p.budget.peak.Load(), Refused: p.budget.refused.Load()}
}

// Listen starts a proxy on cfg.Addr (by default 127.0.0.1 at a free port).
func Listen(cfg Config) (*Proxy, error) {
	switch {
	case cfg.Dial == nil:
		return nil, errors.New("netproxy: Config.Dial is required")
	case cfg.Passthrough && cfg.Gate != nil:
		return nil, errors.New("netproxy: a passthrough proxy has no Gate")
	case cfg.Passthrough:
		cfg.Gate = passGate{}
	case cfg.Gate == nil:
		return nil, errors.New("netproxy: Config.Gate is required unless Config.Passthrough is set")
	}
	if cfg.Recorder == nil {
		cfg.Recorder = nopRecorder{}
	}
	addr := cfg.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s for the proxy: %w", addr, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Proxy{cfg: cfg, ln: ln, ctx: ctx, cancel: cancel, conns: map[*conn]struct{}{}, keys: map[uint32][]byte{}}
	if cfg.MaxBuffered > 0 {
		p.budget = &memoryBudget{limit: cfg.MaxBuffered}
	}
	p.wg.Add(1)
	go p.acceptLoop()
	return p, nil
}

// Addr is the proxy's listening address.
func (p *Proxy) Addr() *net.TCPAddr { return p.ln.Addr().(*net.TCPAddr) }

// Accept back-off after a failed Accept, as net/http's Server does: from
// acceptBackoffMin, doubling, to acceptBackoffMax.
const (
	acceptBackoffMin = 5 * time.Millisecond
	acceptBackoffMax = time.Second
)

func (p *Proxy) acceptLoop() {
	defer p.wg.Done()
	var backoff time.Duration
	for {
		nc, err := p.ln.Accept()
		if err != nil {
			// Closing the listener ends Accept. Anything else (EMFILE,
			// ENFILE, ENOBUFS, a connection reset before it was
			// accepted) is a passing state of the machine: wait and
			// accept again. Returning here left the listening socket
			// open and every later client waiting forever (issue 19
			// item 4).
			if errors.Is(err, net.ErrClosed) || p.ctx.Err() != nil {
				return
			}
			backoff = min(max(2*backoff, acceptBackoffMin), acceptBackoffMax)
			if p.cfg.OnAcceptError != nil {
				p.cfg.OnAcceptError(err, backoff)
			}
			select {
			case <-time.After(backoff):
			case <-p.ctx.Done():
				return
			}
			continue
		}
		backoff = 0
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			nc.Close()
			return
		}
		c := newConn(p, nc, p.streams)
		p.streams++
		p.conns[c] = struct{}{}
		p.wg.Add(1)
		p.mu.Unlock()
		go func() {
			defer p.wg.Done()
			c.serve()
			p.mu.Lock()
			delete(p.conns, c)
			if c.pid != 0 {
				delete(p.keys, c.pid)
			}
			p.mu.Unlock()
		}()
	}
}

// nextOrdinal numbers connections in the order their start-up completes.
func (p *Proxy) registerKey(c *conn, pid uint32, key []byte) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.keys[pid] = append([]byte(nil), key...)
	n := p.attach
	p.attach++
	return n
}

// routeCancel forwards a CancelRequest only when it names one of this
// actor's own connections; every request is reported to the gate.
func (p *Proxy) routeCancel(pkt []byte) error {
	if len(pkt) < 12 {
		return fmt.Errorf("%w: short CancelRequest", ErrProtocol)
	}
	pid := uint32(pkt[8])<<24 | uint32(pkt[9])<<16 | uint32(pkt[10])<<8 | uint32(pkt[11])
	key := pkt[12:]
	p.mu.Lock()
	want, ok := p.keys[pid]
	p.mu.Unlock()
	forward := ok && bytes.Equal(want, key)
	p.cfg.Gate.Cancel(pid, forward)
	if !forward {
		return nil
	}
	if p.cfg.Sessions != nil {
		// A cancel that reaches the backend late could cancel the next
		// client's command: the session is not kept.
		p.cfg.Sessions.poison(pid)
	}
	up, err := p.cfg.Dial(p.ctx)
	if err != nil {
		return fmt.Errorf("forward CancelRequest: %w", err)
	}
	defer up.Close()
	_, err = up.Write(pkt)
	return err
}

// closeGrace is how long CloseConns lets a connection finish on its own: a
// client that sent Terminate just before its actor returned is still being
// read.
const closeGrace = 50 * time.Millisecond

// CloseConns closes every connection but keeps listening (an actor ended:
// whatever it left open must not hold locks into the next step).
func (p *Proxy) CloseConns() { p.closeConns(errActorEnded) }

func (p *Proxy) closeConns(reason error) {
	p.mu.Lock()
	cs := make([]*conn, 0, len(p.conns))
	for c := range p.conns {
		cs = append(cs, c)
	}
	p.mu.Unlock()
	deadline := time.NewTimer(closeGrace)
	defer deadline.Stop()
	for _, c := range cs {
		select {
		case <-c.ended:
			continue
		case <-deadline.C:
		}
		break
	}
	for _, c := range cs {
		c.abort(reason)
	}
}

var errActorEnded = errors.New("the actor ended with this connection still open")

// ErrShutdown is the reason Shutdown gives the connections it closes.
var ErrShutdown = errors.New("the proxy is shutting down")

// Close stops listening, closes every connection and waits for the proxy's
// goroutines to end.
func (p *Proxy) Close() error { return p.shutdown(errActorEnded) }

// Shutdown is Close for a proxy that serves applications rather than
// actors: connections still open are told ErrShutdown (when their server
// stream is between messages) and closed.
func (p *Proxy) Shutdown() error { return p.shutdown(ErrShutdown) }

func (p *Proxy) shutdown(reason error) error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	err := p.ln.Close()
	p.cancel()
	p.closeConns(reason)
	p.wg.Wait()
	return err
}

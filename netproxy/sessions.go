package netproxy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
)

// Sessions keeps server sessions across the proxies of consecutive
// attempts, as a pooler does: when a client ends its connection cleanly
// (Terminate, nothing running, no transaction open), the proxy resets the
// session with DISCARD ALL instead of ending it, and the next client of the
// same actor whose start-up packet is the same gets that session: the proxy
// hands it the server's own start-up answer (AuthenticationOk, the
// parameters, BackendKeyData, ReadyForQuery) as that session gave it. A new
// backend costs a fork and its start-up; a reused one a round trip.
//
// Only sessions that can be handed out safely are kept: the server asked
// the client for no password (a reused session is never given to a client
// that did not authenticate where the server would have asked), the
// connection to the server is a plain socket (a TLS stream is not reused),
// no CancelRequest was routed to the backend (a late one could cancel the
// next client's command), and DISCARD ALL answered as it should. A kept
// session is checked before it is handed out: a backend that has ended
// (terminated, or an idle_session_timeout) is closed instead.
//
// A Sessions serves one actor's proxies, one proxy at a time or several;
// its methods are safe for concurrent use.
type Sessions struct {
	mu       sync.Mutex
	idle     []*session
	epoch    uint64
	closed   bool
	poisoned map[uint32]bool // backends a CancelRequest was routed to
	max      int
	reused   int
	kept     int
}

type session struct {
	key      string // what the session was started with (see Config.SessionTag)
	up       net.Conn
	greeting []byte // the server's start-up answer, AuthenticationOk to ReadyForQuery
	pid      uint32
	epoch    uint64
}

// DefaultMaxSessions bounds the sessions a Sessions keeps idle.
const DefaultMaxSessions = 8

// NewSessions makes an empty set of kept sessions holding at most max
// (DefaultMaxSessions when max is not positive).
func NewSessions(max int) *Sessions {
	if max <= 0 {
		max = DefaultMaxSessions
	}
	return &Sessions{max: max, poisoned: map[uint32]bool{}}
}

// SessionStats counts what a Sessions did.
type SessionStats struct {
	Reused int // connections given a kept session
	Kept   int // sessions reset and kept when their client ended
	Idle   int // kept now
}

// Stats reports the counts so far.
func (s *Sessions) Stats() SessionStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return SessionStats{Reused: s.reused, Kept: s.kept, Idle: len(s.idle)}
}

// Pids are the backend pids of the sessions kept idle now, which whoever
// resets the database must leave alone.
func (s *Sessions) Pids() []uint32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]uint32, len(s.idle))
	for i, x := range s.idle {
		out[i] = x.pid
	}
	return out
}

// Sweep ends the sessions kept before the previous Sweep that no client
// took since: called once per attempt, it keeps what the last attempt
// left, so that sessions started with other options (another isolation
// level, another deadlock_timeout) do not pile up.
func (s *Sessions) Sweep() {
	s.mu.Lock()
	var drop []*session
	keep := s.idle[:0]
	for _, x := range s.idle {
		if x.epoch < s.epoch {
			drop = append(drop, x)
		} else {
			keep = append(keep, x)
		}
	}
	clear(s.idle[len(keep):])
	s.idle = keep
	s.epoch++
	clear(s.poisoned)
	s.mu.Unlock()
	for _, x := range drop {
		x.end()
	}
}

// Close ends every kept session; sessions offered later are ended too.
func (s *Sessions) Close() {
	s.mu.Lock()
	idle := s.idle
	s.idle, s.closed = nil, true
	s.mu.Unlock()
	for _, x := range idle {
		x.end()
	}
}

// take removes and returns a kept session started with key whose backend
// is still there, or nil.
func (s *Sessions) take(key string) *session {
	for {
		x := s.remove(func(y *session) bool { return y.key == key })
		if x == nil {
			return nil
		}
		if alive(x.up) {
			s.mu.Lock()
			s.reused++
			s.mu.Unlock()
			return x
		}
		x.up.Close()
	}
}

// remove takes the first kept session that match accepts out of the idle
// list, or returns nil.
func (s *Sessions) remove(match func(*session) bool) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, y := range s.idle {
		if match(y) {
			s.idle = append(s.idle[:i], s.idle[i+1:]...)
			return y
		}
	}
	return nil
}

// keep adds x, or ends it when it may not be kept.
func (s *Sessions) keep(x *session) {
	s.mu.Lock()
	ok := !s.closed && !s.poisoned[x.pid] && len(s.idle) < s.max
	if ok {
		x.epoch = s.epoch
		s.idle = append(s.idle, x)
		s.kept++
	}
	s.mu.Unlock()
	if !ok {
		x.end()
	}
}

// poison marks a backend a CancelRequest was routed to: it is not kept,
// and ended if it is kept already.
func (s *Sessions) poison(pid uint32) {
	s.mu.Lock()
	s.poisoned[pid] = true
	s.mu.Unlock()
	if x := s.remove(func(y *session) bool { return y.pid == pid }); x != nil {
		x.end()
	}
}

// end sends Terminate and closes the socket.
func (x *session) end() {
	_, _ = x.up.Write(terminateMsg)
	x.up.Close()
}

var terminateMsg = []byte{'X', 0, 0, 0, 4}

// discardAll is the reset a kept session gets, as a simple Query.
var discardAll = func() []byte {
	q := "DISCARD ALL"
	b := make([]byte, 5, 5+len(q)+1)
	b[0] = 'Q'
	binary.BigEndian.PutUint32(b[1:5], uint32(4+len(q)+1))
	return append(append(b, q...), 0)
}()

// discardTag is DISCARD ALL's CommandComplete tag as the scanner keeps it.
var discardTag = []byte("DISCARD ALL\x00")

// reusableGreeting reports whether a start-up answer may be handed to
// another client: it begins with AuthenticationOk (no password was asked
// for) and ends with its first ReadyForQuery, idle.
func reusableGreeting(g []byte) bool {
	if len(g) < 9 || g[0] != 'R' || binary.BigEndian.Uint32(g[1:5]) != 8 || binary.BigEndian.Uint32(g[5:9]) != 0 {
		return false
	}
	return bytes.HasSuffix(g, []byte{'Z', 0, 0, 0, 5, 'I'})
}

// sessionKey is what a kept session must match: the caller's tag, the
// protocol version, the start-up parameters and the proxy's options. The
// parameters are sorted by name (stably: of a name given twice the server
// takes the last), because drivers send them in no fixed order (pgx
// writes them from a map).
func sessionKey(tag string, code uint32, params []string, opts string) string {
	type kv struct{ k, v string }
	pairs := make([]kv, 0, len(params)/2)
	for i := 0; i+1 < len(params); i += 2 {
		pairs = append(pairs, kv{params[i], params[i+1]})
	}
	slices.SortStableFunc(pairs, func(a, b kv) int { return strings.Compare(a.k, b.k) })
	var b strings.Builder
	fmt.Fprintf(&b, "%s\x00%d\x00%s\x00", tag, code, opts)
	for _, p := range pairs {
		b.WriteString(p.k)
		b.WriteByte(0)
		b.WriteString(p.v)
		b.WriteByte(0)
	}
	return b.String()
}

// maxGreeting bounds a start-up answer kept for reuse (a few hundred
// bytes in practice: the parameters, BackendKeyData, ReadyForQuery).
const maxGreeting = 16 << 10

var (
	errParked     = errors.New("the session was reset and kept")
	errParkFailed = errors.New("DISCARD ALL did not leave the session clean")
)

// parkable reports whether the session may be kept when its client ends
// now, after released units: every one was answered with a ReadyForQuery
// (counted as it was scanned, before the client saw it, so a client that
// ends at once is not taken for one with a command running), the last was
// idle, and the session came with a greeting that may be handed out again
// over a plain socket.
func (c *conn) parkable(released int) bool {
	if c.p.cfg.Sessions == nil || c.greeting == nil || c.loseReply.Load() || c.lastTx.Load() != 'I' || c.readies.Load() != int64(released) {
		return false
	}
	if !keepable(c.upstream()) {
		return false
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.scan.hdrN == 0 && c.scan.remain == 0
}

// park resets the session with DISCARD ALL (the pump reads the answer, see
// parkChunk) and, when the answer is clean, detaches the server's socket
// from this connection and keeps it. Whatever happens, the client's side
// ends here as after a Terminate.
func (c *conn) park() error {
	c.parking.Store(true)
	if _, err := c.upstream().Write(discardAll); err != nil {
		return nil // not kept: the connection closes as usual
	}
	<-c.pumped
	if !c.parked {
		return nil
	}
	c.mu.Lock()
	up := c.up
	if c.aborted || up == nil {
		c.mu.Unlock()
		return nil
	}
	c.up = nil // abort closes only the client's side from here on
	c.mu.Unlock()
	c.keptOK = true
	c.p.cfg.Sessions.keep(&session{key: c.sessKey, up: up, greeting: c.greeting, pid: c.pid})
	return nil
}

// parkChunk reads the answer to the proxy's DISCARD ALL: nothing of it is
// recorded or forwarded (the client has gone). The session is kept only
// when the answer is exactly a clean DISCARD ALL ending in an idle
// ReadyForQuery with nothing after it.
func (c *conn) parkChunk(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.scan.scan(b)
	ready := false
	for _, ev := range c.scan.events {
		ready = ready || ev == evReady
	}
	if !ready {
		return nil
	}
	r := &c.scan.result
	clean := r.TxStatus == 'I' && len(r.SQLState) == 0 && bytes.Equal(c.scan.tags, discardTag) &&
		c.scan.typ == 'Z' && c.scan.hdrN == 0 && c.scan.remain == 0
	c.scan.resetResult()
	if clean {
		return errParked
	}
	return errParkFailed
}

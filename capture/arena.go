package capture

import (
	"encoding/binary"
	"sync"
	"time"

	"github.com/pginterleave/interleave/netproxy"
)

// Record kinds.
const (
	KindBytes    = 0 // bytes forwarded
	KindRedacted = 1 // an authentication message: its header and length only
	KindClosed   = 2 // the stream ended; payload is the reason (empty: orderly)
)

// recordHeader: kind u8, actor u8, dir u8, pad u8, stream u32, at u64 (ns
// since the arena's start), len u32.
const recordHeader = 1 + 1 + 1 + 1 + 4 + 8 + 4

// Arena is the capture of one attempt. Recorders for each actor append to
// it concurrently.
type Arena struct {
	mu    sync.Mutex
	start time.Time
	buf   []byte
	off   bool
}

// NewArena returns an empty arena; Reset reuses it for the next attempt.
func NewArena() *Arena { return &Arena{start: time.Now()} }

// Reset empties the arena and restarts its clock, keeping its memory.
func (a *Arena) Reset() {
	a.mu.Lock()
	a.buf = a.buf[:0]
	a.start = time.Now()
	a.mu.Unlock()
}

// Disable makes every recorder a no-op (capture off).
func (a *Arena) Disable() { a.off = true }

// Bytes returns the raw capture. The slice is owned by the arena until the
// next Reset.
func (a *Arena) Bytes() []byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.buf
}

// Recorder returns the netproxy.Recorder for actor.
func (a *Arena) Recorder(actor int) netproxy.Recorder {
	if a.off {
		return nil
	}
	return recorder{a: a, actor: uint8(actor)}
}

func (a *Arena) append(kind, actor uint8, stream int, dir netproxy.Direction, parts ...[]byte) {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	a.mu.Lock()
	at := time.Since(a.start)
	var h [recordHeader]byte
	h[0], h[1], h[2] = kind, actor, uint8(dir)
	binary.BigEndian.PutUint32(h[4:], uint32(stream))
	binary.BigEndian.PutUint64(h[8:], uint64(at))
	binary.BigEndian.PutUint32(h[16:], uint32(n))
	a.buf = append(a.buf, h[:]...)
	for _, p := range parts {
		a.buf = append(a.buf, p...)
	}
	a.mu.Unlock()
}

type recorder struct {
	a     *Arena
	actor uint8
}

func (r recorder) Bytes(stream int, dir netproxy.Direction, data []byte) {
	r.a.append(KindBytes, r.actor, stream, dir, data)
}

func (r recorder) Redacted(stream int, dir netproxy.Direction, header []byte, n int, what string) {
	var l [4]byte
	binary.BigEndian.PutUint32(l[:], uint32(n))
	r.a.append(KindRedacted, r.actor, stream, dir, []byte{uint8(len(header))}, header, l[:], []byte(what))
}

func (r recorder) Closed(stream int, err error) {
	var reason []byte
	if err != nil {
		reason = []byte(err.Error())
	}
	r.a.append(KindClosed, r.actor, stream, netproxy.ClientToServer, reason)
}

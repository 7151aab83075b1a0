package netproxy

import (
	"encoding/binary"
	"fmt"
	"io"
)

// DefaultMaxMessage bounds one client message (and one release unit). The
// buffer grows only as bytes actually arrive, so a hostile length header
// cannot make the proxy allocate memory it was not sent.
const DefaultMaxMessage = 256 << 20

// maxStartupPacket matches PostgreSQL's MAX_STARTUP_PACKET_LENGTH.
const maxStartupPacket = 10000

// initialBuffer is a connection's first read buffer: enough for the
// commands of most applications; it grows, for a connection that needs it,
// only as bytes arrive. Small so that an idle connection costs little.
const initialBuffer = 4 << 10

// framer reads protocol messages from r into one reusable buffer and hands
// out their bounds without copying. Bytes from start to pos form the unit
// being assembled; they stay in place until discard.
type framer struct {
	r     io.Reader
	buf   []byte
	start int // first byte of the unit being assembled
	pos   int // first byte not yet handed out
	end   int // end of bytes read
	max   int
	// authMax, when set, bounds messages while authenticating reports
	// true: a client that has not authenticated sends only small
	// authentication responses, and must not make the proxy buffer a
	// message of max bytes (issue 19 item 4).
	authMax        int
	authenticating func() bool
	// budget, when set, is shared by the proxy's connections: the buffer
	// grows past initialBuffer only by what it reserves there.
	budget   *memoryBudget
	reserved int64
}

// limit is the largest message accepted now, and whether it is the bound
// of a client still authenticating.
func (f *framer) limit() (int, bool) {
	if f.authenticating != nil && f.authenticating() {
		return min(f.authMax, f.max), true
	}
	return f.max, false
}

// tooLarge checks the message of n bytes (length field included) that
// starts at pos against the limit.
func (f *framer) tooLarge(typ byte, n int) error {
	max, auth := f.limit()
	if n+1 > max || (f.pos-f.start)+n+1 > max {
		return &ErrMessageTooLarge{Type: typ, Length: n + 1 + f.pos - f.start, Limit: max, BeforeAuthentication: auth}
	}
	return nil
}

func newFramer(r io.Reader, max int) *framer {
	if max <= 0 {
		max = DefaultMaxMessage
	}
	return &framer{r: r, buf: make([]byte, initialBuffer), max: max}
}

// ErrMessageTooLarge is returned for a message longer than the limit.
type ErrMessageTooLarge struct {
	Type   byte
	Length int
	Limit  int
	// BeforeAuthentication: the client had not authenticated yet.
	BeforeAuthentication bool
}

func (e *ErrMessageTooLarge) Error() string {
	if e.BeforeAuthentication {
		return fmt.Sprintf("client message %s of %d bytes before authentication completed, over the %d bytes an authentication message may have", typeName(e.Type), e.Length, e.Limit)
	}
	return fmt.Sprintf("client message %s of %d bytes exceeds the proxy's limit of %d bytes (raise it: Options.Proxy.MaxMessage)", typeName(e.Type), e.Length, e.Limit)
}

// next frames the next typed message and returns its type and bounds
// [s, e) in f.buf. Earlier bounds stay valid until discard: growing the
// buffer keeps offsets relative to start, which next rebases.
func (f *framer) next() (typ byte, s, e int, err error) {
	if err := f.need(5); err != nil {
		return 0, 0, 0, err
	}
	typ = f.buf[f.pos]
	n := int(binary.BigEndian.Uint32(f.buf[f.pos+1:]))
	if n < 4 {
		return typ, 0, 0, fmt.Errorf("client message %s has invalid length %d", typeName(typ), n)
	}
	if err := f.tooLarge(typ, n); err != nil {
		return typ, 0, 0, err
	}
	if err := f.need(n + 1); err != nil {
		return typ, 0, 0, err
	}
	s = f.pos
	f.pos += n + 1
	return typ, s, f.pos, nil
}

// startup frames an untyped start-up packet (length, then contents).
func (f *framer) startup() (s, e int, err error) {
	if err := f.need(4); err != nil {
		return 0, 0, err
	}
	n := int(binary.BigEndian.Uint32(f.buf[f.pos:]))
	if n < 8 || n > maxStartupPacket {
		return 0, 0, fmt.Errorf("invalid start-up packet length %d", n)
	}
	if err := f.need(n); err != nil {
		return 0, 0, err
	}
	s = f.pos
	f.pos += n
	return s, f.pos, nil
}

// unit returns the bytes of the unit assembled so far.
func (f *framer) unit() []byte { return f.buf[f.start:f.pos] }

// discard drops everything handed out so far.
func (f *framer) discard() {
	f.start = f.pos
	if f.start == f.end {
		f.start, f.pos, f.end = 0, 0, 0
	}
}

// buffered reports whether bytes past pos have already been read.
func (f *framer) buffered() bool { return f.end > f.pos }

// need makes sure n bytes from pos are in the buffer, reading as needed.
func (f *framer) need(n int) error {
	for f.end-f.pos < n {
		if f.end == len(f.buf) {
			if err := f.makeRoom(n); err != nil {
				return err
			}
		}
		m, err := f.r.Read(f.buf[f.end:])
		f.end += m
		if err != nil {
			if f.end-f.pos >= n {
				return nil
			}
			if err == io.EOF && f.end > f.pos {
				return io.ErrUnexpectedEOF // a message was cut short
			}
			return err
		}
	}
	return nil
}

// makeRoom compacts or grows the buffer so that at least one more byte can
// be read. Growth is at most double what is held, never the announced length.
func (f *framer) makeRoom(need int) error {
	held := f.end - f.start
	if f.start > 0 && f.start >= len(f.buf)/2 {
		copy(f.buf, f.buf[f.start:f.end])
		f.pos -= f.start
		f.end -= f.start
		f.start = 0
		return nil
	}
	size := 2 * len(f.buf)
	if want := (f.pos - f.start) + need; size > want && want > len(f.buf) {
		size = want
	}
	if size <= len(f.buf) {
		size = len(f.buf) + initialBuffer
	}
	if f.budget != nil {
		grow := int64(size - len(f.buf))
		if err := f.budget.reserve(grow); err != nil {
			return err
		}
		f.reserved += grow
	}
	nb := make([]byte, size)
	copy(nb, f.buf[f.start:f.end])
	f.pos -= f.start
	f.end = held
	f.start = 0
	f.buf = nb
	return nil
}

// release gives the framer's reservation back to the budget (the
// connection ended).
func (f *framer) release() {
	if f.budget != nil && f.reserved > 0 {
		f.budget.free(f.reserved)
		f.reserved = 0
	}
}

// complete reports whether a whole typed message is buffered past pos, so
// that next returns it without reading.
func (f *framer) complete() bool {
	avail := f.end - f.pos
	if avail < 5 {
		return false
	}
	n := int(binary.BigEndian.Uint32(f.buf[f.pos+1:]))
	return n >= 4 && avail >= n+1
}

// space returns where the next read goes, compacting or growing the buffer
// for the message being framed. It fails for a message over the limit.
func (f *framer) space() ([]byte, error) {
	want := 5
	if avail := f.end - f.pos; avail >= 5 {
		n := int(binary.BigEndian.Uint32(f.buf[f.pos+1:]))
		if n < 4 {
			return nil, fmt.Errorf("client message %s has invalid length %d", typeName(f.buf[f.pos]), n)
		}
		if err := f.tooLarge(f.buf[f.pos], n); err != nil {
			return nil, err
		}
		want = n + 1
	}
	if f.end == len(f.buf) {
		if err := f.makeRoom(want); err != nil {
			return nil, err
		}
	}
	return f.buf[f.end:], nil
}

// filled records that n bytes were read into the slice space returned.
func (f *framer) filled(n int) { f.end += n }

// preload puts b in the buffer as if it had been read (a kept session's
// start-up answer, read by the framer before anything from the socket).
func (f *framer) preload(b []byte) {
	if len(b) > len(f.buf) {
		f.buf = make([]byte, len(b)+initialBuffer)
	}
	f.start, f.pos = 0, 0
	f.end = copy(f.buf, b)
}

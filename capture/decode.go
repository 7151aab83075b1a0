package capture

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/pginterleave/interleave/netproxy"
)

// Record is one decoded capture record.
type Record struct {
	Kind   uint8
	Actor  int
	Stream int
	Dir    netproxy.Direction
	At     time.Duration
	Data   []byte // forwarded bytes, or the close reason
	// For redacted records: the message header that was kept, the length of
	// the whole message, and what it was.
	Header []byte
	Length int
	What   string
}

// ErrCorrupt reports a capture that does not decode.
var ErrCorrupt = errors.New("corrupt capture")

// Decode parses raw capture bytes. It validates every length against the
// input: hostile input yields an error, never a panic or a large allocation.
func Decode(raw []byte) ([]Record, error) {
	var out []Record
	for len(raw) > 0 {
		if len(raw) < recordHeader {
			return nil, fmt.Errorf("%w: truncated record header", ErrCorrupt)
		}
		r := Record{Kind: raw[0], Actor: int(raw[1]), Dir: netproxy.Direction(raw[2])}
		r.Stream = int(binary.BigEndian.Uint32(raw[4:]))
		r.At = time.Duration(binary.BigEndian.Uint64(raw[8:]))
		n := int(binary.BigEndian.Uint32(raw[16:]))
		raw = raw[recordHeader:]
		if n < 0 || n > len(raw) {
			return nil, fmt.Errorf("%w: record of %d bytes with %d left", ErrCorrupt, n, len(raw))
		}
		if r.Kind > KindClosed || r.Dir > netproxy.ServerToClient {
			return nil, fmt.Errorf("%w: unknown record kind %d or direction %d", ErrCorrupt, r.Kind, r.Dir)
		}
		payload := raw[:n]
		raw = raw[n:]
		switch r.Kind {
		case KindRedacted:
			if len(payload) < 1 || len(payload) < 1+int(payload[0])+4 {
				return nil, fmt.Errorf("%w: short redaction record", ErrCorrupt)
			}
			h := int(payload[0])
			r.Header = payload[1 : 1+h]
			r.Length = int(binary.BigEndian.Uint32(payload[1+h:]))
			r.What = string(payload[1+h+4:])
		default:
			r.Data = payload
		}
		out = append(out, r)
	}
	return out, nil
}

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

// ErrOverLimit reports a capture that decodes but holds more than a reader
// takes on (MaxRecords, MaxTraceMessages): a small compressed input must
// not make a reader allocate gigabytes (issue 19 item 3).
var ErrOverLimit = errors.New("capture over the limits of a reader")

// MaxRecords bounds the records a reader decodes: a record costs a reader
// about 100 bytes besides its payload, and an empty one takes only 20
// bytes of capture, so without a bound 256 MiB of zstd-friendly records
// made 13 million of them (6 GB). A proxy capture stops recording at this
// many records (the file says so), so every capture Interleave writes is
// within it.
const MaxRecords = 1 << 21

// Decode parses raw capture bytes. It validates every length against the
// input and counts the records before it allocates: hostile input yields
// an error, never a panic or a large allocation.
func Decode(raw []byte) ([]Record, error) {
	n, err := countRecords(raw)
	if err != nil {
		return nil, err
	}
	out := make([]Record, 0, n)
	for len(raw) > 0 {
		r := Record{Kind: raw[0], Actor: int(raw[1]), Dir: netproxy.Direction(raw[2])}
		r.Stream = int(binary.BigEndian.Uint32(raw[4:]))
		r.At = time.Duration(binary.BigEndian.Uint64(raw[8:]))
		n := int(binary.BigEndian.Uint32(raw[16:]))
		raw = raw[recordHeader:]
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

// countRecords walks the record headers of raw, checking each length,
// kind and direction, and returns how many records it holds: at most
// MaxRecords.
func countRecords(raw []byte) (int, error) {
	count := 0
	for len(raw) > 0 {
		if len(raw) < recordHeader {
			return 0, fmt.Errorf("%w: truncated record header", ErrCorrupt)
		}
		kind, dir := raw[0], netproxy.Direction(raw[2])
		n := int64(binary.BigEndian.Uint32(raw[16:]))
		raw = raw[recordHeader:]
		if n > int64(len(raw)) {
			return 0, fmt.Errorf("%w: record of %d bytes with %d left", ErrCorrupt, n, len(raw))
		}
		if kind > KindClosed || dir > netproxy.ServerToClient {
			return 0, fmt.Errorf("%w: unknown record kind %d or direction %d", ErrCorrupt, kind, dir)
		}
		raw = raw[n:]
		if count++; count > MaxRecords {
			return 0, fmt.Errorf("%w: more than %d records, more than a reader decodes", ErrOverLimit, MaxRecords)
		}
	}
	return count, nil
}

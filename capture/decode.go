package capture

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/klauspost/compress/zstd"
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

// Compress encodes raw for storage: zstd, then base64, with the SHA-256 of
// the raw bytes for an integrity check.
func Compress(raw []byte) (data, sum string, err error) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return "", "", err
	}
	defer enc.Close()
	z := enc.EncodeAll(raw, nil)
	h := sha256.Sum256(raw)
	return base64.StdEncoding.EncodeToString(z), hex.EncodeToString(h[:]), nil
}

// MaxRaw bounds a decompressed capture.
const MaxRaw = 1 << 30

// Decompress reverses Compress and checks size and SHA-256.
func Decompress(data, sum string, size int) ([]byte, error) {
	z, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if size < 0 || size > MaxRaw {
		return nil, fmt.Errorf("%w: declared size %d", ErrCorrupt, size)
	}
	dec, err := zstd.NewReader(bytes.NewReader(z), zstd.WithDecoderMaxMemory(uint64(size)+1<<20), zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	defer dec.Close()
	raw, err := io.ReadAll(io.LimitReader(dec, int64(size)+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if len(raw) != size {
		return nil, fmt.Errorf("%w: %d bytes, the artifact says %d", ErrCorrupt, len(raw), size)
	}
	h := sha256.Sum256(raw)
	if hex.EncodeToString(h[:]) != sum {
		return nil, fmt.Errorf("%w: SHA-256 does not match", ErrCorrupt)
	}
	return raw, nil
}

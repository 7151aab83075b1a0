package artifact

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// CaptureEncoding is how a capture is stored: zstd, then base64.
const CaptureEncoding = "zstd+base64"

// EncodeCapture compresses raw capture bytes for an artifact, with their
// size and SHA-256 for the check every reader makes. A capture over
// MaxCaptureSize is not kept: it returns nil and a sentence for Cut.
func EncodeCapture(raw []byte) (c *Capture, cut string, err error) {
	if len(raw) > MaxCaptureSize {
		return nil, fmt.Sprintf("the wire capture (%d bytes) is over the limit of %s and was not kept", len(raw), sizeName(MaxCaptureSize)), nil
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, "", err
	}
	defer enc.Close()
	h := sha256.Sum256(raw)
	return &Capture{
		Encoding: CaptureEncoding,
		SHA256:   hex.EncodeToString(h[:]),
		Size:     len(raw),
		Data:     base64.StdEncoding.EncodeToString(enc.EncodeAll(raw, nil)),
	}, "", nil
}

// Bytes decodes the capture and checks it (see Check); the caller owns the
// returned bytes.
func (c *Capture) Bytes() ([]byte, error) {
	// Grown once to the declared size, which is at most MaxCaptureSize (a
	// capture that declares more is refused before anything is read):
	// growing by doubling as bytes arrive took up to twice the size.
	var raw bytes.Buffer
	if c.Size >= 0 && c.Size <= MaxCaptureSize {
		raw.Grow(c.Size + 1)
	}
	if err := c.decode(&raw); err != nil {
		return nil, err
	}
	return raw.Bytes(), nil
}

// Check verifies the capture without keeping it: a known encoding, a
// declared size within MaxCaptureSize, base64 and zstd data that decode to
// exactly that many bytes, and their SHA-256. It reads in constant memory.
func (c *Capture) Check() error { return c.decode(io.Discard) }

func (c *Capture) decode(w io.Writer) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: the wire capture %s", ErrInvalid, fmt.Sprintf(format, args...))
	}
	if c.Encoding != CaptureEncoding {
		return bad("has encoding %q; this Interleave reads %s", c.Encoding, CaptureEncoding)
	}
	if c.Size < 0 || c.Size > MaxCaptureSize {
		return bad("declares %d bytes; the limit is %s", c.Size, sizeName(MaxCaptureSize))
	}
	if len(c.SHA256) != 64 {
		return bad("has no SHA-256")
	}
	z := base64.NewDecoder(base64.StdEncoding, strings.NewReader(c.Data))
	// The window a frame may ask for is bounded too (MaxMemory, when
	// streaming): hostile data must not make the decoder allocate more than
	// the declared size allows.
	dec, err := zstd.NewReader(z, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(c.Size)+1<<20))
	if err != nil {
		return bad("does not decode: %v", err)
	}
	defer dec.Close()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(h, w), io.LimitReader(dec, int64(c.Size)+1))
	if err != nil {
		return bad("does not decode: %v", err)
	}
	if n != int64(c.Size) {
		return bad("holds %d bytes, not the %d it declares", n, c.Size)
	}
	if hex.EncodeToString(h.Sum(nil)) != c.SHA256 {
		return bad("does not match its SHA-256 (it was changed or damaged)")
	}
	return nil
}

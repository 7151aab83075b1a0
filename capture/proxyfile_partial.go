package capture

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/klauspost/compress/zstd"
)

// writePartialHeader starts a proxy's working file as a partial capture:
// the magic and a header that says so. It returns where the frames begin.
func writePartialHeader(f *os.File, h ProxyHeader) (int64, error) {
	h.Partial = true
	hj, err := json.Marshal(h)
	if err != nil {
		return 0, err
	}
	b := append(append([]byte(proxyFileMagic), hj...), '\n')
	if _, err := f.Write(b); err != nil {
		return 0, err
	}
	return int64(len(b)), nil
}

// flushEvery hands the records gathered to the compressor every d, even
// fewer than a chunk, so that a kill -9 loses at most about d of them (the
// working file was empty after 40 sessions; issue 19 item 5).
func (w *ProxyWriter) flushEvery(d time.Duration) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-w.stopFlush:
			return
		case <-t.C:
		}
		w.mu.Lock()
		if !w.closed && len(w.cur) > 0 {
			select {
			case next := <-w.spare:
				w.full <- w.cur
				w.cur = next
			default: // the compressor is busy: next time
			}
		}
		w.mu.Unlock()
	}
}

// readPartial reads the frames of a partial capture (a working file, of a
// proxy still running or killed): as many records as decode, up to the
// last complete one, at most MaxRaw bytes. Nothing says how many there
// should be, so a damaged frame ends them like a cut one.
func readPartial(h *ProxyHeader, r io.Reader) (*ProxyHeader, []byte, error) {
	zr, err := zstd.NewReader(r, zstd.WithDecoderMaxWindow(8*proxyWindow),
		zstd.WithDecoderMaxMemory(MaxRaw+16*proxyWindow), zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	defer zr.Close()
	var buf bytes.Buffer // grown as bytes arrive: nothing declares a size
	_, _ = io.Copy(&buf, io.LimitReader(zr, MaxRaw+1))
	if buf.Len() > MaxRaw {
		return nil, nil, fmt.Errorf("%w: more than %d bytes of records", ErrOverLimit, MaxRaw)
	}
	raw := buf.Bytes()[:completeRecords(buf.Bytes())]
	h.Size = int64(len(raw))
	return h, raw, nil
}

// completeRecords is the length of the longest prefix of raw made of whole
// records.
func completeRecords(raw []byte) int {
	off := 0
	for len(raw)-off >= recordHeader {
		n := int(uint32(raw[off+16])<<24 | uint32(raw[off+17])<<16 | uint32(raw[off+18])<<8 | uint32(raw[off+19]))
		if n > len(raw)-off-recordHeader {
			break
		}
		off += recordHeader + n
	}
	return off
}

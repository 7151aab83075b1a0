package capture

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/klauspost/compress/zstd"
)

// IsProxyFile reports whether the file at path begins as a proxy capture
// file does.
func IsProxyFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, len(proxyFileMagic))
	_, err = io.ReadFull(f, b)
	return err == nil && string(b) == proxyFileMagic
}

// ReadProxyFile reads and checks a proxy capture file and returns its
// header and its records (the raw capture Decode, Trace and WritePCAPNG
// take). The file is untrusted: the header is bounded, every size is
// checked against the file and MaxRaw before anything is allocated, and
// the data must decompress to exactly the declared size and SHA-256.
func ReadProxyFile(path string) (*ProxyHeader, []byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	h, raw, err := readProxy(f, st.Size())
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return h, raw, nil
}

func readProxy(r io.Reader, fileSize int64) (*ProxyHeader, []byte, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	magic := make([]byte, len(proxyFileMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != proxyFileMagic {
		return nil, nil, fmt.Errorf("%w: not an Interleave proxy capture file", ErrCorrupt)
	}
	line, err := readLine(br, maxProxyHeader)
	if err != nil {
		return nil, nil, err
	}
	var h ProxyHeader
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return nil, nil, fmt.Errorf("%w: header: %v", ErrCorrupt, err)
	}
	if h.Version != ProxyFileVersion {
		return nil, nil, fmt.Errorf("the capture file has format version %d; this Interleave reads version %d", h.Version, ProxyFileVersion)
	}
	if h.Encoding != "zstd" {
		return nil, nil, fmt.Errorf("%w: encoding %q", ErrCorrupt, h.Encoding)
	}
	if h.Partial {
		return readPartial(&h, br)
	}
	body := fileSize - int64(len(proxyFileMagic)) - int64(len(line)) - 1
	switch {
	case h.Size < 0 || h.Size > MaxRaw:
		return nil, nil, fmt.Errorf("%w: declared size %d (at most %d)", ErrCorrupt, h.Size, MaxRaw)
	case h.CompressedSize < 0 || h.CompressedSize != body:
		return nil, nil, fmt.Errorf("%w: the header says %d bytes of data follow, the file has %d", ErrCorrupt, h.CompressedSize, body)
	case len(h.SHA256) != 64:
		return nil, nil, fmt.Errorf("%w: the header's sha256 is not 64 hex digits", ErrCorrupt)
	}
	zr, err := zstd.NewReader(io.LimitReader(br, h.CompressedSize), zstd.WithDecoderMaxWindow(8*proxyWindow),
		zstd.WithDecoderMaxMemory(uint64(h.Size)+16*proxyWindow), zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	defer zr.Close()
	// Grow as bytes arrive rather than trusting the declared size.
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, io.LimitReader(zr, h.Size+1)); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	raw := buf.Bytes()
	if int64(len(raw)) != h.Size {
		return nil, nil, fmt.Errorf("%w: %d bytes of records, the header says %d", ErrCorrupt, len(raw), h.Size)
	}
	sum := sha256.Sum256(raw)
	if hex.EncodeToString(sum[:]) != h.SHA256 {
		return nil, nil, fmt.Errorf("%w: SHA-256 does not match", ErrCorrupt)
	}
	return &h, raw, nil
}

// readLine reads one line of at most max bytes, without its newline.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		part, isPrefix, err := br.ReadLine()
		if err != nil {
			return nil, fmt.Errorf("%w: header: %v", ErrCorrupt, err)
		}
		line = append(line, part...)
		if len(line) > max {
			return nil, fmt.Errorf("%w: a header over %d bytes", ErrCorrupt, max)
		}
		if !isPrefix {
			return line, nil
		}
	}
}

// ProxyTrace is a proxy capture decoded: the trace per connection, as an
// artifact's capture gives it, and a summary per connection.
type ProxyTrace struct {
	Header  *ProxyHeader  `json:"header"`
	Trace   *TraceResult  `json:"trace"`
	Summary []ConnSummary `json:"summary"`
}

// TraceProxyFile reads the proxy capture file at path and decodes it.
// It also returns the raw records (for WritePCAPNG).
func TraceProxyFile(path string) (*ProxyTrace, []byte, error) {
	h, raw, err := ReadProxyFile(path)
	if err != nil {
		return nil, nil, err
	}
	tr, err := Trace(raw, nil, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	nameProxyStreams(tr)
	return &ProxyTrace{Header: h, Trace: tr, Summary: Summarize(tr)}, raw, nil
}

// nameProxyStreams gives a proxy capture's streams what an artifact's
// connection list gives an attempt's: the client connections whose start-up
// completed are sessions, numbered in the order they started.
func nameProxyStreams(tr *TraceResult) {
	tr.unscheduled = true
	n := 0
	for i := range tr.Streams {
		s := &tr.Streams[i]
		s.Actor = "client"
		if s.Kind != "unattached" {
			continue
		}
		for _, m := range s.Startup {
			if m.Type == "ReadyForQuery" {
				s.Kind, s.Conn = "session", n
				n++
				break
			}
		}
	}
}

// WriteText writes the summary, then the trace, then what was dropped.
func (p *ProxyTrace) WriteText(w io.Writer, path string) error {
	ew := &errWriter{w: w}
	h := p.Header
	ended := h.Ended.Format("15:04:05")
	if h.Partial {
		ended = "(not finished)"
	}
	ew.printf("%s: Interleave proxy capture of %s (listening on %s), %s to %s; times in µs since %s",
		path, h.Upstream, h.Listen, h.Started.Format("2006-01-02 15:04:05"), ended, h.Started.Format("15:04:05.000000"))
	if d := h.Dropped; d != nil {
		ew.printf("NOT COMPLETE: %s at %dµs; %d records (%s) of %d connections were not recorded after that",
			d.Reason, d.FromUS, d.Records, byteSize(d.Bytes), d.Streams)
	}
	if h.Partial {
		ew.printf("PARTIAL: the working file of a proxy still recording, or killed before it wrote its capture file; these are the %s of records flushed until then", byteSize(h.Size))
	}
	ew.printf("")
	writeSummaryTable(ew, p.Summary)
	ew.printf("")
	if ew.err != nil {
		return ew.err
	}
	return p.Trace.WriteText(w)
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

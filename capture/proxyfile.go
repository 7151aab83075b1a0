package capture

import (
	"bufio"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/internal/redact"
	"github.com/pginterleave/interleave/netproxy"
)

// A proxy capture file is what `interleave proxy --capture FILE` writes:
// every byte of every proxied connection in the records an artifact's
// capture holds (Decode reads them), compressed with zstd, behind a
// one-line magic and a one-line JSON header:
//
//	interleave-proxy-capture\n
//	{"version":1,"size":...,"sha256":"...","compressedSize":...,...}\n
//	<compressedSize bytes of zstd>
//
// size and sha256 are those of the decompressed records; a reader checks
// both. The header never holds credentials: Upstream is host and port only.
const (
	proxyFileMagic   = "interleave-proxy-capture\n"
	ProxyFileVersion = 1
	// maxProxyHeader bounds the header line a reader accepts.
	maxProxyHeader = 64 << 10
)

// ProxyHeader describes a proxy capture file.
type ProxyHeader struct {
	Version int `json:"version"`
	// Listen and Upstream are the proxy's addresses (host:port, or a
	// socket path); UpstreamTLS says whether the proxy spoke TLS upstream.
	Listen      string `json:"listen"`
	Upstream    string `json:"upstream"`
	UpstreamTLS bool   `json:"upstreamTls"`
	// Started is the wall-clock time of record offset 0; Ended when the
	// file was closed.
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended"`
	// Encoding of the data after the header: "zstd".
	Encoding       string `json:"encoding"`
	Size           int64  `json:"size"`   // decompressed bytes
	SHA256         string `json:"sha256"` // of the decompressed bytes
	CompressedSize int64  `json:"compressedSize"`
	Streams        int    `json:"streams"` // connections recorded
	// Budget is the most record bytes the proxy would keep; Dropped says
	// what it did not keep once the budget was reached.
	Budget  int64    `json:"budget"`
	Dropped *Dropped `json:"dropped,omitempty"`
	// Partial marks the working file of a proxy that is still recording,
	// or was killed: its data is the zstd frames flushed so far (one per
	// chunk of whole records, at least every second), and size, sha256
	// and compressedSize are not known. A reader keeps the records up to
	// the last complete one.
	Partial bool `json:"partial,omitempty"`
}

// Dropped is what a proxy capture did not record.
type Dropped struct {
	Reason  string `json:"reason"`
	FromUS  int64  `json:"fromUs"`  // first record not kept, µs since Started
	Records int64  `json:"records"` // records not kept
	Bytes   int64  `json:"bytes"`   // their payload bytes
	Streams int    `json:"streams"` // connections with at least one record not kept
}

// DefaultCaptureBudget bounds a proxy capture when the caller gives none.
const DefaultCaptureBudget = 256 << 20

// proxyWindow is the zstd window of a proxy capture: a reader needs this
// much memory besides the records.
const proxyWindow = 1 << 20

// proxyChunk is how many record bytes the recorder gathers before the
// compressor takes them.
const proxyChunk = 1 << 20

// ProxyWriter records a passthrough proxy's connections into a proxy
// capture file. It is the proxy's netproxy.Recorder: recording appends to
// an in-memory chunk under one lock; a background goroutine compresses full
// chunks into a temporary file beside the destination, so that memory stays
// at about two chunks whatever the traffic. Close writes the file.
type ProxyWriter struct {
	path   string
	header ProxyHeader
	onDrop func(Dropped)
	start  time.Time

	mu       sync.Mutex
	cur      []byte // records not yet handed to the compressor
	recorded int64  // record bytes accepted
	records  int    // records accepted: at most MaxRecords
	streams  map[int]bool
	dropped  Dropped
	lost     map[int]bool // streams with a record not kept
	closed   bool

	full  chan []byte // chunks for the compressor
	spare chan []byte // chunks it has emptied
	done  chan error

	tmp     *os.File
	dataOff int64 // where the frames begin in tmp, after its partial header
	sum     hash.Hash
	zw      *zstd.Encoder // EncodeAll only: one frame per chunk
	frame   []byte
	size    int64

	stopFlush chan struct{}

	secrets proxySecrets
}

// ProxyWriterOptions configures NewProxyWriter.
type ProxyWriterOptions struct {
	// Budget bounds the record bytes kept (0: DefaultCaptureBudget; at
	// most MaxRaw, what a reader accepts).
	Budget int64
	// OnDrop, when set, is called once, when the first record is dropped.
	OnDrop func(Dropped)
	// FlushEvery is how often records gathered are compressed into the
	// working file even when fewer than a chunk (0: every second): what a
	// kill -9 can lose.
	FlushEvery time.Duration
	// Secrets are masked (redact.MaskByte, byte for byte) wherever they
	// occur in what is recorded, as the value of every PASSWORD literal
	// a client sends is.
	Secrets []string
}

// MaxRaw bounds the raw bytes a proxy capture file holds (and what its
// reader accepts): a recording proxy runs long, so it may hold more than an
// artifact's capture (artifact.MaxCaptureSize).
const MaxRaw = 1 << 30

// NewProxyWriter prepares path; nothing is there until Close. Until then
// the records go to a working file beside it (WorkingFile), which is
// itself a partial capture that trace reads: after a kill -9 it holds the
// records up to the last flush. header's Listen, Upstream and UpstreamTLS
// are kept; the rest is filled in.
func NewProxyWriter(path string, header ProxyHeader, opts ProxyWriterOptions) (*ProxyWriter, error) {
	if opts.Budget <= 0 {
		opts.Budget = DefaultCaptureBudget
	}
	if opts.Budget > MaxRaw {
		return nil, fmt.Errorf("a capture budget of %d bytes is over the %d bytes a capture may hold", opts.Budget, MaxRaw)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".partial-*")
	if err != nil {
		return nil, fmt.Errorf("create the capture file's working file: %w", err)
	}
	zw, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(proxyWindow))
	if err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, err
	}
	header.Version, header.Encoding, header.Budget = ProxyFileVersion, "zstd", opts.Budget
	w := &ProxyWriter{
		path: path, header: header, onDrop: opts.OnDrop, start: time.Now(),
		streams: map[int]bool{}, lost: map[int]bool{},
		full: make(chan []byte, 1), spare: make(chan []byte, 2), done: make(chan error, 1),
		tmp: tmp, sum: sha256.New(), zw: zw, stopFlush: make(chan struct{}),
	}
	w.header.Started = w.start.UTC()
	w.secrets.s = redact.Secrets{}.With(opts.Secrets...)
	if w.dataOff, err = writePartialHeader(tmp, w.header); err != nil {
		zw.Close()
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("create the capture file's working file: %w", err)
	}
	w.cur = make([]byte, 0, proxyChunk+recordHeader+4096)
	w.spare <- make([]byte, 0, proxyChunk+recordHeader+4096)
	go w.compress()
	go w.flushEvery(cmp.Or(opts.FlushEvery, time.Second))
	return w, nil
}

// WorkingFile is the file the records go to until Close: a partial
// capture, readable by trace while the proxy runs and after a crash.
func (w *ProxyWriter) WorkingFile() string { return w.tmp.Name() }

// compress is the writer's goroutine: it owns sum, zw, frame and tmp until
// Close. Each chunk, whole records, becomes one zstd frame written in one
// write, so the working file is readable up to its last complete frame
// whenever the process stops.
func (w *ProxyWriter) compress() {
	var err error
	for chunk := range w.full {
		if err == nil {
			w.sum.Write(chunk)
			w.frame = w.zw.EncodeAll(chunk, w.frame[:0])
			_, err = w.tmp.Write(w.frame)
			w.size += int64(len(chunk))
		}
		w.spare <- chunk[:0]
	}
	w.done <- err
}

// record appends one record, unless the budget is spent.
func (w *ProxyWriter) record(kind uint8, stream int, dir netproxy.Direction, parts ...[]byte) {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	at := time.Since(w.start)
	newStream := !w.streams[stream]
	switch {
	case newStream && len(w.streams) >= maxStreams:
		w.dropLocked(stream, n, at, fmt.Sprintf("more than %d connections: a capture numbers each connection's TCP port in its pcapng from 40000 up", maxStreams))
		return
	case w.records >= MaxRecords-maxStreams && !(kind == KindClosed && w.streams[stream]):
		// What a reader decodes (Decode): the rest is kept for the ends of
		// the streams.
		w.dropLocked(stream, n, at, fmt.Sprintf("the capture holds %d records, the most a reader decodes", w.records))
		return
	case w.recorded+int64(recordHeader+n) > w.header.Budget && !(kind == KindClosed && w.streams[stream]):
		// A stream's end is kept while its bytes are (a bounded 32 bytes
		// of reason per stream), so that the trace does not show
		// connections that ended as still open.
		w.dropLocked(stream, n, at, fmt.Sprintf("the capture budget of %d bytes was reached", w.header.Budget))
		return
	}
	if kind == KindClosed && n > 32 && w.recorded+int64(recordHeader+n) > w.header.Budget {
		parts, n = [][]byte{parts[0][:32]}, 32
	}
	w.streams[stream] = true
	w.records++
	w.recorded += int64(recordHeader + n)
	var h [recordHeader]byte
	h[0], h[2] = kind, uint8(dir)
	binary.BigEndian.PutUint32(h[4:], uint32(stream))
	binary.BigEndian.PutUint64(h[8:], uint64(at))
	binary.BigEndian.PutUint32(h[16:], uint32(n))
	w.cur = append(w.cur, h[:]...)
	for _, p := range parts {
		w.cur = append(w.cur, p...)
	}
	if len(w.cur) >= proxyChunk {
		select {
		case next := <-w.spare:
			w.full <- w.cur
			w.cur = next
		default:
			// The compressor is still busy with the previous chunk: keep
			// appending (the budget bounds how far).
		}
	}
}

func (w *ProxyWriter) dropLocked(stream, n int, at time.Duration, reason string) {
	first := w.dropped.Records == 0
	if first {
		w.dropped.Reason, w.dropped.FromUS = reason, micros(at)
	}
	w.dropped.Records++
	w.dropped.Bytes += int64(n)
	if !w.lost[stream] {
		w.lost[stream] = true
		w.dropped.Streams++
	}
	if first && w.onDrop != nil {
		go w.onDrop(w.dropped) // never block the proxy on the caller
	}
}

// Bytes implements netproxy.Recorder.
func (w *ProxyWriter) Bytes(stream int, dir netproxy.Direction, data []byte) {
	w.record(KindBytes, stream, dir, w.secrets.masked(dir, data))
}

// Redacted implements netproxy.Recorder: only the header and the length of
// an authentication message are kept.
func (w *ProxyWriter) Redacted(stream int, dir netproxy.Direction, header []byte, n int, what string) {
	var l [4]byte
	binary.BigEndian.PutUint32(l[:], uint32(n))
	w.record(KindRedacted, stream, dir, []byte{uint8(len(header))}, header, l[:], []byte(what))
}

// Closed implements netproxy.Recorder.
func (w *ProxyWriter) Closed(stream int, err error) {
	var reason []byte
	if err != nil {
		reason = w.secrets.masked(netproxy.ServerToClient, []byte(err.Error()))
	}
	w.record(KindClosed, stream, netproxy.ClientToServer, reason)
}

// SetListen records the address the proxy actually listens on (known only
// once it listens, after the writer was made for it).
func (w *ProxyWriter) SetListen(addr string) {
	w.mu.Lock()
	w.header.Listen = addr
	w.mu.Unlock()
}

// Stats reports the record bytes kept, the connections recorded and what
// was dropped so far.
func (w *ProxyWriter) Stats() (recorded int64, streams int, dropped Dropped) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.recorded, len(w.streams), w.dropped
}

// Close stops recording, compresses what is left and writes the file
// atomically (a temporary file renamed into place). Call it after the
// proxy has closed its connections, so that their ends are recorded.
func (w *ProxyWriter) Close() (*ProxyHeader, error) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil, errors.New("the capture file is already closed")
	}
	w.closed = true
	last := w.cur
	w.cur = nil
	w.mu.Unlock()
	close(w.stopFlush)
	if len(last) > 0 {
		<-w.spare // wait until the compressor can take it
		w.full <- last
	}
	close(w.full)
	err := <-w.done
	defer os.Remove(w.tmp.Name())
	defer w.tmp.Close()
	w.zw.Close()
	if err != nil {
		return nil, fmt.Errorf("compress the capture: %w", err)
	}
	end, err := w.tmp.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, err
	}
	compressed := end - w.dataOff
	w.mu.Lock()
	h := w.header
	w.mu.Unlock()
	h.Ended = time.Now().UTC()
	h.Size, h.SHA256, h.CompressedSize = w.size, hex.EncodeToString(w.sum.Sum(nil)), compressed
	_, h.Streams, _ = w.Stats()
	if w.dropped.Records > 0 {
		d := w.dropped
		h.Dropped = &d
	}
	if _, err := w.tmp.Seek(w.dataOff, io.SeekStart); err != nil {
		return nil, err
	}
	if err := writeProxyFile(w.path, &h, w.tmp); err != nil {
		return nil, err
	}
	return &h, nil
}

// writeProxyFile writes magic, header and data to a temporary file beside
// path and renames it into place.
func writeProxyFile(path string, h *ProxyHeader, data io.Reader) (err error) {
	hj, err := json.Marshal(h)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write the capture file: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriter(f)
	bw.WriteString(proxyFileMagic)
	bw.Write(hj)
	bw.WriteByte('\n')
	if _, err := io.Copy(bw, data); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	// Private, as every data-bearing output (docs/reliability.md): it holds
	// every query and result of every client.
	if err := f.Chmod(0o600); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	// Never over a device, fifo, socket or directory, even with --force.
	if err := artifact.CheckReplaceable(path); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write the capture file: %w", err)
	}
	return nil
}

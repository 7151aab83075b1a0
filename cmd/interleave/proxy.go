package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/capture"
	"github.com/pginterleave/interleave/capture/pcapng"
	"github.com/pginterleave/interleave/cmd/cli"
	"github.com/pginterleave/interleave/netproxy"
	"github.com/pginterleave/interleave/pgserver"
	"github.com/spf13/cobra"
)

// proxyOptions are interleave proxy's flags.
type proxyOptions struct {
	listen, upstream, upstreamCA string
	upstreamTLS, force, asJSON   bool
	capturePath, pcapPath        string
	budget, memoryBudget         string
	maxMessage                   int
	startupTimeout, idleTimeout  time.Duration
	secretEnvs                   []string
}

// proxyCommand runs a transparent recording proxy in front of any
// application until Ctrl+C or SIGTERM.
func proxyCommand() *cobra.Command {
	var o proxyOptions
	cmd := &cobra.Command{
		Use:   "proxy --upstream URL [--listen ADDR] [--capture FILE] [--pcap FILE] [--json]",
		Short: "Record what any application sends to PostgreSQL: a transparent, recording wire-protocol proxy",
		Example: `  interleave proxy --upstream postgres://localhost:5432 --listen 127.0.0.1:6432 --capture app.capture
  DATABASE_URL=postgres://app@127.0.0.1:6432/app npm test      # in another shell; Ctrl+C the proxy after
  interleave trace app.capture                                   # statements, round trips, protocol per connection
  interleave proxy --upstream 'postgres://db.internal:5432?sslmode=verify-full' --capture app.capture --pcap app.pcapng`,
		Long: `Listens on --listen and forwards every client connection to the server --upstream
names, byte for byte and without gating: start-up and authentication (trust, md5,
SCRAM) pass through, and the client authenticates as itself. Point the application
at the proxy's address instead of the server's.

--capture FILE records every connection in the byte-exact capture an artifact
carries (authentication messages redacted to their header and length), compressed
with zstd, and writes FILE when the proxy stops (Ctrl+C or SIGTERM). Read it with
  interleave trace FILE [--json] [--pcap OUT]
which shows each connection's messages and a summary per connection: statements,
round trips, protocol, errors, time in the server and in the client. Records are
compressed as they come into a working file beside FILE (.FILE.partial-*), so memory
stays at a few MiB however long the proxy runs; that file is itself a partial capture,
flushed every second, which interleave trace reads (after a kill -9 too).
--capture-budget bounds what is recorded, and past it nothing more is kept (the proxy
keeps forwarding), and the file and this command say what was dropped. --pcap FILE also writes the capture as
pcapng for Wireshark. --json prints, when the proxy stops, one JSON object on stdout:
the addresses, the files written and what the recording holds.

A connection that has not finished start-up and authentication within
--startup-timeout (60s, as PostgreSQL's authentication_timeout) is closed, and until
then a client's message may be at most 128 KiB; --idle-timeout closes connections
through which nothing moved for that long; --memory-budget bounds the client messages
buffered for all connections together (one that would go over it fails its connection
with a clear error). Out of file descriptors, the proxy says so on stderr and accepts
again as soon as it can.

The upstream URL's host, port and sslmode are used; a password in it is never
used, printed or recorded. --upstream-tls (or sslmode=require, verify-ca or
verify-full in the URL) speaks TLS to the server; clients talk to the proxy in
plain text (an SSLRequest is answered N).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runProxy(cmd, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.listen, "listen", "127.0.0.1:6432", "address to listen on (host:port; port 0 picks a free one)")
	f.StringVar(&o.upstream, "upstream", "", "the PostgreSQL server, as a URL: postgres://host:port[/db][?sslmode=...] (a host starting with / is a socket directory)")
	f.BoolVar(&o.upstreamTLS, "upstream-tls", false, "reach the server over TLS, verify-full against the system roots or --upstream-ca")
	f.StringVar(&o.upstreamCA, "upstream-ca", "", "PEM file of the CA that signed the server's certificate (with --upstream-tls)")
	f.StringVar(&o.capturePath, "capture", "", "record every connection into this file (written when the proxy stops)")
	f.StringVar(&o.pcapPath, "pcap", "", "also write the recording as a pcapng file when the proxy stops")
	f.StringVar(&o.budget, "capture-budget", "256MiB", "most record bytes kept in a recording (B, KiB, MiB, GiB; at most 1GiB)")
	f.BoolVar(&o.force, "force", false, "overwrite existing --capture and --pcap files")
	f.IntVar(&o.maxMessage, "max-message", netproxy.DefaultMaxMessage, "largest client message accepted, in bytes")
	f.StringVar(&o.memoryBudget, "memory-budget", "1GiB", "most bytes of client messages the proxy buffers for all connections together (B, KiB, MiB, GiB)")
	f.DurationVar(&o.startupTimeout, "startup-timeout", netproxy.DefaultStartupTimeout, "close a connection that has not finished start-up and authentication within this time")
	f.DurationVar(&o.idleTimeout, "idle-timeout", 0, "close a connection through which nothing moved for this long (0: never)")
	f.StringArrayVar(&o.secretEnvs, "secret-env", nil, "the name of an environment variable whose value is a secret to mask in the capture (repeat for several)")
	f.BoolVar(&o.asJSON, "json", false, "when the proxy stops, print what it recorded and wrote as JSON (progress stays on stderr)")
	_ = cmd.MarkFlagRequired("upstream")
	return cmd
}

func runProxy(cmd *cobra.Command, o proxyOptions) error {
	stderr := cmd.ErrOrStderr()
	var secrets []string
	for _, name := range o.secretEnvs {
		v, err := cli.SecretFromEnv(name)
		if err != nil {
			return &cli.UsageError{Msg: "--secret-env: " + err.Error(), Usage: cmd.UseLine()}
		}
		secrets = append(secrets, v)
	}
	budget, err := parseByteSize(o.budget)
	if err != nil {
		return fmt.Errorf("--capture-budget: %w", err)
	}
	memBudget, err := parseMemoryBudget(o.memoryBudget)
	if err != nil {
		return err
	}
	if o.startupTimeout <= 0 || o.idleTimeout < 0 {
		return errors.New("--startup-timeout must be positive and --idle-timeout 0 (never) or positive")
	}
	for _, p := range []string{o.capturePath, o.pcapPath} {
		if p == "" {
			continue
		}
		if err := artifact.CheckWritable(p, o.force); err != nil {
			return err
		}
	}
	ep, err := upstreamEndpoint(o)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)

	// Check the way to the server once, up front: a wrong address or
	// certificate is one clear error rather than every client failing.
	probe, err := ep.Dial(ctx)
	if err != nil {
		return fmt.Errorf("cannot reach the upstream server at %s: %w", ep.Address, err)
	}
	probe.Close()

	recordTo := o.capturePath
	if recordTo == "" && o.pcapPath != "" {
		tmp, err := os.CreateTemp(filepath.Dir(o.pcapPath), ".interleave-proxy-*.capture")
		if err != nil {
			return err
		}
		tmp.Close()
		os.Remove(tmp.Name())
		recordTo = tmp.Name()
		defer os.Remove(recordTo)
	}
	var w *capture.ProxyWriter
	cfg := netproxy.Config{Dial: ep.Dial, Passthrough: true, Addr: o.listen, MaxMessage: o.maxMessage,
		StartupTimeout: o.startupTimeout, IdleTimeout: o.idleTimeout, MaxBuffered: memBudget, OnAcceptError: acceptErrorReporter(stderr)}
	if recordTo != "" {
		w, err = capture.NewProxyWriter(recordTo, capture.ProxyHeader{Listen: o.listen, Upstream: ep.Address, UpstreamTLS: ep.TLS != nil},
			capture.ProxyWriterOptions{Budget: budget, Secrets: secrets, OnDrop: func(d capture.Dropped) {
				fmt.Fprintf(stderr, "interleave proxy: %s; from now on nothing more is recorded (the proxy keeps forwarding), and the capture file will say so\n", d.Reason)
			}})
		if err != nil {
			return err
		}
		cfg.Recorder = w
	}
	p, err := netproxy.Listen(cfg)
	if err != nil {
		if w != nil {
			w.Close()
			os.Remove(recordTo)
		}
		return err
	}
	if w != nil {
		w.SetListen(p.Addr().String())
	}
	tlsNote := ""
	if ep.TLS != nil {
		tlsNote = " over TLS"
	}
	fmt.Fprintf(stderr, "interleave proxy: listening on %s, forwarding to %s%s\n", p.Addr(), ep.Address, tlsNote)
	if o.capturePath != "" {
		fmt.Fprintf(stderr, "interleave proxy: recording every connection into %s (written when the proxy stops; budget %s); until then, and after a crash, the records so far are in %s, which interleave trace reads\n", o.capturePath, o.budget, w.WorkingFile())
	}
	fmt.Fprintf(stderr, "interleave proxy: connect to postgres://USER@%s/DATABASE; Ctrl+C stops\n", p.Addr())

	var sig os.Signal
	select {
	case sig = <-sigs:
		fmt.Fprintf(stderr, "interleave proxy: %v: closing connections and writing the recording (again to stop at once)\n", sig)
		go func() {
			again := <-sigs
			fmt.Fprintf(stderr, "interleave proxy: %v again: stopped without finishing the recording\n", again)
			os.Exit(128 + int(again.(syscall.Signal)))
		}()
	case <-ctx.Done():
	}
	p.Shutdown()
	mem := p.MemoryStats()
	fmt.Fprintf(stderr, "interleave proxy: client messages buffered at most %d bytes at once of the %s memory budget", mem.Peak, o.memoryBudget)
	if mem.Refused > 0 {
		fmt.Fprintf(stderr, "; %d messages were refused for it (raise --memory-budget)", mem.Refused)
	}
	fmt.Fprintln(stderr)
	h, err := finishRecording(stderr, w, o, recordTo)
	if err != nil {
		return err
	}
	if o.asJSON {
		out := proxyJSON(o, p.Addr().String(), ep, h)
		out.Memory = mem
		if err := writeJSONOut(cmd.OutOrStdout(), out); err != nil {
			return err
		}
	}
	if s, ok := sig.(syscall.Signal); ok {
		return exitCode(128 + int(s))
	}
	return nil
}

// ProxyJSON is what `interleave proxy --json` prints when it stops.
type ProxyJSON struct {
	SchemaVersion int    `json:"schemaVersion"`
	Listen        string `json:"listen"`
	Upstream      string `json:"upstream"` // host:port or socket path, never credentials
	UpstreamTLS   bool   `json:"upstreamTls"`
	// Capture and PCAP are the files written (absent when not asked for);
	// the counts are the recording's, when there was one.
	Capture        string           `json:"capture,omitempty"`
	PCAP           string           `json:"pcap,omitempty"`
	Connections    int              `json:"connections"`
	Size           int64            `json:"size"`
	CompressedSize int64            `json:"compressedSize"`
	Dropped        *capture.Dropped `json:"dropped,omitempty"`
	// Memory is what client messages took of --memory-budget.
	Memory netproxy.MemoryStats `json:"memory"`
}

// parseMemoryBudget reads --memory-budget as parseByteSize reads sizes (a
// size of at least one --max-message's worth is sensible, but any
// positive size up to 1 PiB is taken).
func parseMemoryBudget(s string) (int64, error) {
	n, err := parseByteSize(s)
	if err != nil || n > 1<<50 {
		return 0, fmt.Errorf("--memory-budget: %q is not a size (for example 1GiB)", s)
	}
	return n, nil
}

// acceptErrorReporter says on stderr, at most once a second, that the
// proxy could not accept a connection and is trying again.
func acceptErrorReporter(stderr io.Writer) func(error, time.Duration) {
	var last time.Time // only the accept goroutine calls it
	return func(err error, retry time.Duration) {
		if time.Since(last) < time.Second {
			return
		}
		last = time.Now()
		hint := ""
		if errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) {
			hint = " (out of file descriptors: raise ulimit -n, or lower the clients' pool sizes)"
		}
		fmt.Fprintf(stderr, "interleave proxy: cannot accept a connection: %v%s; trying again in %v, clients wait meanwhile\n", err, hint, retry)
	}
}

func proxyJSON(o proxyOptions, listen string, ep pgserver.Endpoint, h *capture.ProxyHeader) ProxyJSON {
	out := ProxyJSON{SchemaVersion: 1, Listen: listen, Upstream: ep.Address, UpstreamTLS: ep.TLS != nil, Capture: o.capturePath, PCAP: o.pcapPath}
	if h != nil {
		out.Connections, out.Size, out.CompressedSize, out.Dropped = h.Streams, h.Size, h.CompressedSize, h.Dropped
		if o.capturePath == "" {
			out.CompressedSize = 0 // only the pcapng was written
		}
	}
	return out
}

// finishRecording writes the capture file and the pcapng, says what they
// hold and returns the capture's header (nil: nothing was recorded).
func finishRecording(stderr io.Writer, w *capture.ProxyWriter, o proxyOptions, recordTo string) (*capture.ProxyHeader, error) {
	if w == nil {
		return nil, nil
	}
	h, err := w.Close()
	if err != nil {
		return nil, err
	}
	if o.capturePath != "" {
		fmt.Fprintf(stderr, "interleave proxy: wrote %s: %d connections, %d bytes recorded (%d compressed); read it with: interleave trace %s\n",
			o.capturePath, h.Streams, h.Size, h.CompressedSize, o.capturePath)
	}
	if d := h.Dropped; d != nil {
		fmt.Fprintf(stderr, "interleave proxy: the recording is not complete: %s at %dµs; %d records (%d bytes) of %d connections were dropped\n",
			d.Reason, d.FromUS, d.Records, d.Bytes, d.Streams)
	}
	if o.pcapPath == "" {
		return h, nil
	}
	_, raw, err := capture.ReadProxyFile(recordTo)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := pcapng.Write(&buf, raw); err != nil {
		return nil, err
	}
	if err := artifact.WriteFileAtomic(o.pcapPath, buf.Bytes(), o.force); err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "interleave proxy: wrote %s (open it with wireshark, or: tshark -r %s -d tcp.port==5432,pgsql)\n", o.pcapPath, o.pcapPath)
	return h, nil
}

// upstreamEndpoint reads the server's address and TLS settings from the
// URL; the credentials in it are left alone.
func upstreamEndpoint(o proxyOptions) (pgserver.Endpoint, error) {
	cfg, err := pgconn.ParseConfig(o.upstream)
	if err != nil {
		return pgserver.Endpoint{}, fmt.Errorf("--upstream is not a valid PostgreSQL URL (want postgres://host:port/database): %s", redactPassword(err.Error(), o.upstream))
	}
	var ep pgserver.Endpoint
	if strings.HasPrefix(cfg.Host, "/") {
		ep = pgserver.Endpoint{Network: "unix", Address: filepath.Join(cfg.Host, ".s.PGSQL."+strconv.Itoa(int(cfg.Port)))}
	} else {
		ep = pgserver.Endpoint{Network: "tcp", Address: net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))}
	}
	urlTLS := cfg.TLSConfig != nil
	for _, fb := range cfg.Fallbacks {
		if fb.TLSConfig == nil {
			urlTLS = false // sslmode allow or prefer: plain text is acceptable
		}
	}
	switch {
	case o.upstreamTLS:
		if ep.TLS, err = pgserver.TLSConfig(cfg.Host, o.upstreamCA); err != nil {
			return ep, err
		}
	case urlTLS:
		ep.TLS = cfg.TLSConfig
	}
	if ep.TLS != nil && ep.Network == "unix" {
		return ep, fmt.Errorf("TLS to the upstream server needs a TCP address; %s is a Unix socket", cfg.Host)
	}
	return ep, nil
}

// redactPassword removes the URL's password from s.
func redactPassword(s, rawURL string) string {
	if cfg, err := pgconn.ParseConfig(rawURL); err == nil && cfg.Password != "" {
		s = strings.ReplaceAll(s, cfg.Password, "REDACTED")
	}
	if i := strings.Index(rawURL, "://"); i >= 0 {
		if at := strings.LastIndex(rawURL, "@"); at > i {
			if colon := strings.Index(rawURL[i+3:at], ":"); colon >= 0 {
				s = strings.ReplaceAll(s, rawURL[i+3+colon+1:at], "REDACTED")
			}
		}
	}
	return s
}

// parseByteSize reads "256MiB", "1GiB", "64KiB", "1000" (bytes).
func parseByteSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1}}
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseFloat(t, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q is not a size (for example 256MiB)", s)
	}
	v := int64(n * float64(mult))
	if v > capture.MaxRaw {
		return 0, fmt.Errorf("%s is over the 1GiB a capture may hold", s)
	}
	return v, nil
}

// traceProxyFile is interleave trace for a proxy capture file.
func traceProxyFile(cmd *cobra.Command, path string, asJSON, asSpec bool, pcapOut string, force bool) error {
	if asSpec {
		return errors.New("--spec needs an artifact: a proxy capture records no scheduled order")
	}
	pt, raw, err := capture.TraceProxyFile(path)
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	if asJSON {
		if err := writeJSONOut(w, pt); err != nil {
			return err
		}
	} else if err := pt.WriteText(w, path); err != nil {
		return err
	}
	if pcapOut == "" {
		return nil
	}
	var buf bytes.Buffer
	if err := pcapng.Write(&buf, raw); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := artifact.WriteFileAtomic(pcapOut, buf.Bytes(), force); err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "Wrote %s (open it with wireshark, or: tshark -r %s -d tcp.port==5432,pgsql)\n", pcapOut, pcapOut)
	return nil
}

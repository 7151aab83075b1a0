// Package capture records every byte the proxies forward, in both
// directions, with a monotonic timestamp and the connection it crossed. It
// appends to one arena per attempt on the hot path (one lock, one copy) and
// compresses with zstd only when an attempt is kept. Authentication
// exchanges are recorded as redacted markers, never as bytes. ProxyWriter
// writes the same records for `interleave proxy` into a proxy capture file,
// streaming and within a budget; ReadProxyFile and TraceProxyFile read it.
package capture

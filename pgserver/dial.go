package pgserver

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"io"
	"net"
)

// Dial opens a connection to the endpoint, ready for a start-up packet.
// With TLS configured it first negotiates it (SSLRequest, then the
// handshake, verifying the server as the configuration says).
func (ep Endpoint) Dial(ctx context.Context) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, ep.Network, ep.Address)
	if err != nil {
		return nil, err
	}
	if ep.TLS == nil {
		return c, nil
	}
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
		defer c.SetDeadline(noDeadline)
	}
	var req [8]byte
	binary.BigEndian.PutUint32(req[0:], 8)
	binary.BigEndian.PutUint32(req[4:], 80877103)
	if _, err := c.Write(req[:]); err != nil {
		c.Close()
		return nil, err
	}
	var answer [1]byte
	if _, err := io.ReadFull(c, answer[:]); err != nil {
		c.Close()
		return nil, fmt.Errorf("upstream TLS: %w", err)
	}
	if answer[0] != 'S' {
		c.Close()
		return nil, fmt.Errorf("upstream TLS: the server at %s does not accept TLS connections (it answered %q to SSLRequest); turn TLS off (Options.Server.TLS) or enable ssl on the server", ep.Address, answer[0])
	}
	tc := tls.Client(c, ep.TLS)
	if err := tc.HandshakeContext(ctx); err != nil {
		c.Close()
		return nil, fmt.Errorf("upstream TLS handshake with %s: %w", ep.Address, err)
	}
	return tc, nil
}

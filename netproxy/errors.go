package netproxy

import (
	"errors"
	"fmt"
)

// Named errors: each fails the connection with a message the actor sees as
// a PostgreSQL ErrorResponse and the scheduler records.
var (
	ErrFlushNeedsProfile = errors.New("Flush before Sync is not supported by the sync-cycle protocol profile; run with Options.Proxy.Protocol flush-stages")
	ErrCopyBoth          = errors.New("replication (COPY BOTH) is not supported by Interleave")
	ErrProtocol          = errors.New("protocol violation")
	ErrSecondProducer    = errors.New("second command-producing connection")
	// ErrChannelBinding: the server offered SCRAM-SHA-256-PLUS and the client
	// hung up instead of answering, as clients that require channel binding
	// do when their own connection is not TLS.
	ErrChannelBinding = errors.New("the client closed the connection when PostgreSQL offered SCRAM-SHA-256-PLUS: a client that requires channel binding (channel_binding=require) cannot authenticate through Interleave's proxy, whose client side is not TLS; set channel_binding=prefer or disable in the actor's connection settings")
)

// typeName renders a message type byte for error messages.
func typeName(t byte) string {
	if t >= 0x20 && t < 0x7f {
		return fmt.Sprintf("'%c'", t)
	}
	return fmt.Sprintf("0x%02x", t)
}

// errorResponse encodes an ErrorResponse the proxy sends in place of the
// server when it fails a connection (SQLSTATE 08P01 protocol_violation).
func errorResponse(severity, code, msg string) []byte {
	body := make([]byte, 0, 64+len(msg))
	body = append(body, 'S')
	body = append(body, severity...)
	body = append(body, 0, 'V')
	body = append(body, severity...)
	body = append(body, 0, 'C')
	body = append(body, code...)
	body = append(body, 0, 'M')
	body = append(body, "interleave: "+msg...)
	body = append(body, 0, 0)
	out := make([]byte, 5, 5+len(body))
	out[0] = 'E'
	putUint32(out[1:], uint32(4+len(body)))
	return append(out, body...)
}

func putUint32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
}

// IsProxyError reports whether err is a failure the proxy itself raised (a
// named unsupported feature, a protocol violation, a limit) rather than one
// PostgreSQL or the network caused.
func IsProxyError(err error) bool {
	var tooLarge *ErrMessageTooLarge
	var budget *ErrMemoryBudget
	var timeout *timeoutError
	return errors.Is(err, ErrFlushNeedsProfile) || errors.Is(err, ErrCopyBoth) || errors.Is(err, ErrProtocol) ||
		errors.Is(err, ErrSecondProducer) || errors.Is(err, ErrChannelBinding) || errors.As(err, &tooLarge) ||
		errors.As(err, &budget) || errors.As(err, &timeout)
}

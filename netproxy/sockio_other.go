//go:build !linux

package netproxy

import "net"

// wrapSocket is the identity where raw socket calls are not implemented.
func wrapSocket(c net.Conn) net.Conn { return c }

// readLoop reads c until an error or the end of the stream; see
// readLoopConn.
func readLoop(c net.Conn, buf []byte, max int, handle func([]byte) error) error {
	return readLoopConn(c, buf, max, handle)
}

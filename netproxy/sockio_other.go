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

// readFramed reads c into fr until handle says stop or fails; see
// readFramedConn.
func readFramed(c net.Conn, fr *framer, handle func() (stop bool, err error)) error {
	return readFramedConn(c, fr, handle)
}

// keepable: sessions are kept only on Linux, where alive can check them.
func keepable(net.Conn) bool { return false }

// alive is never asked where sessions are not kept.
func alive(net.Conn) bool { return false }

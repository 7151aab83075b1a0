//go:build !linux

package netproxy

import "net"

// wrapSocket is the identity where raw socket calls are not implemented.
func wrapSocket(c net.Conn) net.Conn { return c }

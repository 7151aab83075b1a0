//go:build linux

package netproxy

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"unsafe"
)

// sockConn does the proxy's reads and writes on a plain TCP or Unix socket
// with raw system calls on the non-blocking descriptor, waiting in the
// runtime's poller only when the call would block.
//
// Why: net.Conn's Read and Write enter the system call through the
// scheduler (entersyscall), and in a process whose processors are mostly
// idle, as a proxy waiting on round trips is, every such entry wakes the
// runtime's sysmon thread. Profiles of the hop showed that wake-up (futex)
// in about a tenth of the proxy's CPU samples and, on a 2-core machine, a
// second thread contending with PostgreSQL and the client for every
// message. A non-blocking read or write returns at once (EAGAIN when it
// would block), so it does not need the scheduler's hand-off.
//
// Deadlines, Close and the poller's wake-ups keep their net.Conn meaning:
// they go through syscall.RawConn.
type sockConn struct {
	net.Conn
	rc      syscall.RawConn
	readFn  func(fd uintptr) bool
	writeFn func(fd uintptr) bool

	// Arguments and results of the call in progress, one call per
	// direction at a time (net.Conn allows concurrent callers): rmu and wmu
	// are held from setting them to reading the results. Uncontended in the
	// proxy, which has one reader and one writer per socket.
	rmu  sync.Mutex
	wmu  sync.Mutex
	rbuf []byte
	rn   int
	rerr syscall.Errno
	wbuf []byte
	wn   int
	werr syscall.Errno
}

// maxRawWrite bounds one write system call, so that a large unit does not
// hold the processor for long without a scheduling point.
const maxRawWrite = 1 << 20

// wrapSocket returns c with raw reads and writes when c is a plain TCP or Unix
// socket, and c itself otherwise (TLS, pipes in tests).
func wrapSocket(c net.Conn) net.Conn {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return c
	}
	switch c.(type) {
	case *net.TCPConn, *net.UnixConn:
	default:
		return c
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return c
	}
	r := &sockConn{Conn: c, rc: rc}
	r.readFn = r.readOnce
	r.writeFn = r.writeSome
	return r
}

func (r *sockConn) readOnce(fd uintptr) bool {
	n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(r.rbuf))), uintptr(len(r.rbuf)))
	if e == syscall.EAGAIN {
		return false // wait in the poller, then try again
	}
	if e == syscall.EINTR {
		return r.readOnce(fd)
	}
	r.rn, r.rerr = int(n), e
	return true
}

// Read reads into b. It returns io.EOF when the peer closed its side.
func (r *sockConn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	r.rmu.Lock()
	r.rbuf, r.rn, r.rerr = b, 0, 0
	err := r.rc.Read(r.readFn)
	n, errno := r.rn, r.rerr
	r.rbuf = nil
	r.rmu.Unlock()
	if err != nil {
		return 0, err // closed, or the deadline passed
	}
	if errno != 0 {
		return 0, &net.OpError{Op: "read", Net: r.LocalAddr().Network(), Source: r.LocalAddr(), Addr: r.RemoteAddr(), Err: os.NewSyscallError("read", errno)}
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

func (r *sockConn) writeSome(fd uintptr) bool {
	for r.wn < len(r.wbuf) {
		p := r.wbuf[r.wn:]
		if len(p) > maxRawWrite {
			p = p[:maxRawWrite]
		}
		n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
		switch e {
		case 0:
			r.wn += int(n)
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false // the socket buffer is full: wait until writable
		default:
			r.werr = e
			return true
		}
	}
	return true
}

// Write writes all of b, or fails.
func (r *sockConn) Write(b []byte) (int, error) {
	r.wmu.Lock()
	r.wbuf, r.wn, r.werr = b, 0, 0
	err := r.rc.Write(r.writeFn)
	n, errno := r.wn, r.werr
	r.wbuf = nil
	r.wmu.Unlock()
	if err != nil {
		return n, err
	}
	if errno != 0 {
		return n, &net.OpError{Op: "write", Net: r.LocalAddr().Network(), Source: r.LocalAddr(), Addr: r.RemoteAddr(), Err: os.NewSyscallError("write", errno)}
	}
	return n, nil
}

// CloseWrite half-closes a TCP or Unix socket.
func (r *sockConn) CloseWrite() error {
	if cw, ok := r.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// readLoop reads c until an error or the end of the stream, handing each
// chunk to handle. buf grows by doubling, up to max, whenever a read fills
// it. It returns io.EOF at the end of the stream, or the first error of a
// read or of handle.
//
// On a plain socket the loop runs inside one raw read, and after a short
// read it waits for the poller's next event instead of trying a read that
// would only say EAGAIN: a short read drained the socket, and a byte that
// arrives later raises a new event (the poller is edge-triggered and keeps
// an event that arrives before the wait). That saves a system call per
// server answer; a net.Conn Read cannot, because each one first resets the
// poller's readiness.
func readLoop(c net.Conn, buf []byte, max int, handle func([]byte) error) error {
	s, ok := c.(*sockConn)
	if !ok {
		return readLoopConn(c, buf, max, handle)
	}
	var failed error
	err := s.rc.Read(func(fd uintptr) bool {
		for {
			n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(buf))), uintptr(len(buf)))
			switch {
			case e == syscall.EAGAIN:
				return false
			case e == syscall.EINTR:
				continue
			case e != 0:
				failed = &net.OpError{Op: "read", Net: s.LocalAddr().Network(), Source: s.LocalAddr(), Addr: s.RemoteAddr(), Err: os.NewSyscallError("read", e)}
				return true
			case n == 0:
				failed = io.EOF
				return true
			}
			if err := handle(buf[:n]); err != nil {
				failed = err
				return true
			}
			if int(n) < len(buf) {
				return false // drained: wait for the next event
			}
			if len(buf) < max {
				buf = make([]byte, 2*len(buf))
			}
		}
	})
	if err != nil {
		return err // closed
	}
	return failed
}

// readFramed reads c into fr until handle says stop or fails, calling
// handle after each read with the bytes framed so far. On a plain socket it
// waits, after a short read, for the poller's next event rather than
// reading again (see readLoop).
func readFramed(c net.Conn, fr *framer, handle func() (stop bool, err error)) error {
	s, ok := c.(*sockConn)
	if !ok {
		return readFramedConn(c, fr, handle)
	}
	var failed error
	err := s.rc.Read(func(fd uintptr) bool {
		for {
			p, err := fr.space()
			if err != nil {
				failed = err
				return true
			}
			n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
			switch {
			case e == syscall.EAGAIN:
				return false
			case e == syscall.EINTR:
				continue
			case e != 0:
				failed = &net.OpError{Op: "read", Net: s.LocalAddr().Network(), Source: s.LocalAddr(), Addr: s.RemoteAddr(), Err: os.NewSyscallError("read", e)}
				return true
			case n == 0:
				failed = io.EOF
				if fr.end > fr.pos {
					failed = io.ErrUnexpectedEOF // a message was cut short
				}
				return true
			}
			fr.filled(int(n))
			stop, err := handle()
			if stop || err != nil {
				failed = err
				return true
			}
			if int(n) < len(p) {
				return false // drained: wait for the next event
			}
		}
	})
	if err != nil {
		return err
	}
	return failed
}

// alive reports whether a kept session's socket has nothing to read and is
// not closed: an idle backend sends nothing, so any byte (a FATAL from a
// termination) or the end of the stream means it is gone.
func alive(c net.Conn) bool {
	sc, ok := c.(*sockConn)
	if !ok {
		return false
	}
	var b [1]byte
	live := false
	err := sc.rc.Control(func(fd uintptr) {
		n, _, e := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		live = n <= 0 && errors.Is(e, syscall.EAGAIN)
	})
	return err == nil && live
}

// keepable reports whether a session over c may be kept (Sessions): a
// plain socket, whose liveness alive can check.
func keepable(c net.Conn) bool {
	_, ok := c.(*sockConn)
	return ok
}

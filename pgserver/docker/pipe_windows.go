//go:build windows

package docker

import (
	"context"
	"errors"
	"net"
	"os"
	"syscall"
	"time"
)

// errorPipeBusy is ERROR_PIPE_BUSY: every instance of the pipe is in use.
const errorPipeBusy syscall.Errno = 231

// dialPipe opens the engine's named pipe for asynchronous I/O, so that the
// file os.NewFile makes of it supports deadlines (Go 1.25), and retries
// while the pipe is busy.
func dialPipe(ctx context.Context, name string) (net.Conn, error) {
	p, err := syscall.UTF16PtrFromString(name)
	if err != nil {
		return nil, err
	}
	for {
		h, err := syscall.CreateFile(p, syscall.GENERIC_READ|syscall.GENERIC_WRITE, 0, nil, syscall.OPEN_EXISTING, syscall.FILE_FLAG_OVERLAPPED, 0)
		if err == nil {
			return &pipeConn{File: os.NewFile(uintptr(h), name), name: name}, nil
		}
		if !errors.Is(err, errorPipeBusy) {
			return nil, &os.PathError{Op: "open", Path: name, Err: err}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// pipeConn is a named pipe as a net.Conn.
type pipeConn struct {
	*os.File
	name string
}

type pipeAddr string

func (a pipeAddr) Network() string { return "pipe" }
func (a pipeAddr) String() string  { return string(a) }

func (c *pipeConn) LocalAddr() net.Addr  { return pipeAddr(c.name) }
func (c *pipeConn) RemoteAddr() net.Addr { return pipeAddr(c.name) }

package netproxy

import (
	"context"
	"errors"
)

var errNoSender = errors.New("this unit is not attached to a proxy connection")

// Kind says which protocol path a release unit took.
type Kind uint8

const (
	KindSimple   Kind = iota + 1 // one Query ('Q')
	KindExtended                 // Parse/Bind/Describe/Execute/Close up to Sync
	KindFunction                 // FunctionCall ('F')
	KindStage                    // a Flush-terminated stage (profile flush-stages)
)

func (k Kind) String() string {
	switch k {
	case KindSimple:
		return "simple"
	case KindExtended:
		return "extended"
	case KindFunction:
		return "function"
	case KindStage:
		return "stage"
	}
	return "unknown"
}

// Unit is one release unit waiting at the gate.
//
// Bytes points into the proxy's read buffer: it is valid only until Await
// returns. A Gate that keeps the bytes must copy them.
type Unit struct {
	Kind    Kind
	Ordinal int    // unit ordinal within its connection, from 0
	Bytes   []byte // the client's original bytes, every message of the unit
	Types   []byte // message type bytes in order; same lifetime as Bytes

	send  func([]byte) error
	sent  bool
	err   error
	fault faultKind // set by the gate (fault.go)
}

// Send writes the unit to the server now, from the caller's goroutine, so
// that a gate can release two units of different connections back to back
// in one pass (overlap pairs). Only a gate may call it, before Await returns;
// the proxy then does not send the unit again.
func (u *Unit) Send() error {
	if u.send == nil {
		return errNoSender
	}
	if !u.sent {
		u.sent = true
		u.err = u.send(u.Bytes)
	}
	return u.err
}

// Result is what the server answered to one released unit. Byte slices point
// into buffers the proxy reuses: valid only during Complete.
type Result struct {
	TxStatus byte   // from ReadyForQuery: 'I', 'T' or 'E'; 0 when none
	Tags     []byte // CommandComplete tags, each terminated by a NUL byte
	Rows     int    // DataRow messages
	SQLState []byte // of the first ErrorResponse, or empty
	Error    []byte // message of the first ErrorResponse, or empty
	Detail   []byte // its DETAIL field, or empty
	Copy     byte   // 'G' (copy in) or 'H' (copy out) when the unit ran COPY
}

// ConnInfo describes a proxied connection once start-up has completed.
type ConnInfo struct {
	Ordinal    int      // connection ordinal within the actor, in start-up completion order
	Stream     int      // the capture stream id (accept order, cancel connections included)
	BackendPID uint32   // from BackendKeyData
	Params     []string // start-up parameters as name, value pairs, in order
}

// Gate decides when units are released. The scheduler implements it; one
// Gate serves one actor's proxy.
type Gate interface {
	// Attach registers a connection whose start-up has completed.
	Attach(info ConnInfo) (ConnGate, error)
	// Cancel records a CancelRequest that arrived at this proxy; forwarded
	// says whether it was passed on to PostgreSQL.
	Cancel(pid uint32, forwarded bool)
	// Starting reports a connection whose start-up packet arrived; every
	// Starting is followed by Attach or by StartFailed for the same stream.
	// Until then the actor is busy connecting.
	Starting(stream int)
	// StartFailed reports a connection that ended before start-up completed.
	StartFailed(stream int, err error)
}

// ConnGate is the per-connection side of a Gate.
type ConnGate interface {
	// Await blocks until u may be forwarded. An error fails the connection.
	Await(ctx context.Context, u *Unit) error
	// Complete reports the server's answer to the released unit.
	Complete(r *Result)
	// Closed reports the end of the connection; err is nil after Terminate.
	Closed(err error)
}

// SessionKeeper is implemented by a ConnGate that tells apart a connection
// whose session was reset and kept (Config.Sessions): for it ClosedKept is
// called instead of Closed(nil). Its session holds no lock any more (DISCARD
// ALL ran, outside any transaction), though its backend lives on.
type SessionKeeper interface {
	ClosedKept()
}

// passGate stands in for the gate of a passthrough proxy: start-up and
// completions have nobody to tell.
type passGate struct{}

func (passGate) Attach(ConnInfo) (ConnGate, error)  { return passGate{}, nil }
func (passGate) Cancel(uint32, bool)                {}
func (passGate) Starting(int)                       {}
func (passGate) StartFailed(int, error)             {}
func (passGate) Await(context.Context, *Unit) error { return nil }
func (passGate) Complete(*Result)                   {}
func (passGate) Closed(error)                       {}

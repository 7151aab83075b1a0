package pgserver

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"fmt"
	"regexp"
	"time"

	"github.com/pginterleave/interleave/supervise"
)

// Endpoint says how a proxy reaches the server.
type Endpoint struct {
	Network string      // "unix" or "tcp"
	Address string      // socket path or host:port
	TLS     *tls.Config // non-nil when the upstream side must use TLS
}

// Server is a PostgreSQL server Interleave may create databases on.
// Implementations are safe for concurrent use.
type Server interface {
	// Endpoint is where proxies connect.
	Endpoint() Endpoint
	// ConnString is a libpq-style URL for a direct connection to database.
	// It may carry a password: never print it.
	ConnString(database string) string
	// User and Password are the credentials actors present (through their proxy).
	User() string
	Password() string
	// CreateDatabase creates an empty database named interleave_<hex>.
	CreateDatabase(ctx context.Context) (string, error)
	// DropDatabase terminates the sessions in name and drops it. It refuses any
	// database this server value did not create.
	DropDatabase(ctx context.Context, name string) error
	// MaintenanceDB is a database that always exists (for monitors).
	MaintenanceDB() string
	// Version is the server_version setting.
	Version() string
	// Describe names the server for summaries (never includes a password).
	Describe() string
	// Close drops every database still owned and releases the server.
	Close() error
}

var ownedName = regexp.MustCompile(`^interleave_[0-9a-f]{16}$`)

// IsOwnedName reports whether name has the form Interleave gives its databases.
func IsOwnedName(name string) bool { return ownedName.MatchString(name) }

func newDatabaseName() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("crypto/rand failed: %v", err))
	}
	return "interleave_" + hex.EncodeToString(b[:])
}

// Provider starts a throwaway server some other way than from local binaries
// (a container: package pgserver/docker) for one run; the run closes it.
type Provider interface {
	Start(ctx context.Context, req ProviderRequest) (Server, error)
}

// ProviderRequest is what a run needs of the server it asks for.
type ProviderRequest struct {
	MaxConnections int
	TLS            bool // proxies will reach it over TLS
}

// Terminated reports whether a server Interleave manages has stopped on its
// own (killed, crashed), with the end of its log; nil while it runs, and
// for servers it does not manage.
func Terminated(s Server) error {
	if t, ok := s.(interface{ terminated() error }); ok {
		return t.terminated()
	}
	return nil
}

// Gone reports whether a server Interleave manages has lost its postmaster
// (dead, or a zombie not yet reaped), even while its backends still answer:
// a backend learns of its postmaster's death only at its next wait.
func Gone(s Server) bool {
	if l, ok := s.(*Local); ok {
		return l.Pid() > 0 && !supervise.Alive(l.Pid())
	}
	return false
}

// Managed reports whether Terminated can tell of s: a server whose
// process Interleave started and watches.
func Managed(s Server) bool {
	_, ok := s.(interface{ terminated() error })
	return ok
}

// TerminatedWithin is Terminated, waiting up to d for a managed server
// that is still seen running to end: a killed postmaster breaks its
// clients' connections a moment before its exit is reaped, and a caller
// that saw a connection break asks whether that was the server.
func TerminatedWithin(s Server, d time.Duration) error {
	if t, ok := s.(interface{ exitedCh() <-chan struct{} }); ok {
		timer := time.NewTimer(d)
		defer timer.Stop()
		select {
		case <-t.exitedCh():
		case <-timer.C:
		}
	}
	return Terminated(s)
}

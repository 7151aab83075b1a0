package pgserver

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5"
)

// External is a dedicated test server given by URL. Interleave creates and
// drops only databases named interleave_<hex> on it and terminates only
// sessions in those.
type External struct {
	cfg      *pgx.ConnConfig
	url      *url.URL
	admin    *admin
	version  string
	endpoint Endpoint
}

// OpenExternal checks that the server is reachable and that the account may
// create databases. upstreamTLS, when set, is how proxies reach it.
func OpenExternal(ctx context.Context, rawURL string, upstreamTLS *tls.Config) (*External, error) {
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("the database URL is not valid: %s", redactURLError(err))
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return nil, fmt.Errorf("the database URL must look like postgres://user:password@host:port/database")
	}
	e := &External{cfg: cfg, url: u}
	if strings.HasPrefix(cfg.Host, "/") {
		e.endpoint = Endpoint{Network: "unix", Address: fmt.Sprintf("%s/.s.PGSQL.%d", cfg.Host, cfg.Port)}
	} else {
		e.endpoint = Endpoint{Network: "tcp", Address: net.JoinHostPort(cfg.Host, fmt.Sprint(cfg.Port))}
	}
	if upstreamTLS != nil {
		if e.endpoint.Network == "unix" {
			return nil, fmt.Errorf("TLS to the server (Options.Server.TLS) needs a TCP server address; %s is a Unix socket", cfg.Host)
		}
		e.endpoint.TLS = upstreamTLS
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("cannot reach the test server at %s: %s", e.Describe(), redactURLError(err))
	}
	defer conn.Close(ctx)
	var canCreate bool
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version'), rolcreatedb OR rolsuper FROM pg_roles WHERE rolname = current_user").Scan(&e.version, &canCreate); err != nil {
		return nil, fmt.Errorf("query the test server: %w", err)
	}
	if !canCreate {
		return nil, fmt.Errorf("the account %s on %s may not create databases; grant CREATEDB or use another account", cfg.User, e.Describe())
	}
	e.admin = newAdmin(rawURL)
	// Databases that runs killed outright left here, unheld and old enough,
	// are dropped now (best effort: a failure must not stop this run).
	_, _ = SweepDatabases(ctx, rawURL, DatabaseSweepOptions{MinAge: DefaultDatabaseMinAge})
	return e, nil
}

// RedactURLError is err's message with any password in a URL removed.
func RedactURLError(err error) string { return redactURLError(err) }

func redactURLError(err error) string {
	// pgx errors can echo the connection string; never print a password.
	s := err.Error()
	if i := strings.Index(s, "password="); i >= 0 {
		j := strings.IndexAny(s[i:], " )")
		if j < 0 {
			j = len(s) - i
		}
		s = s[:i] + "password=REDACTED" + s[i+j:]
	}
	return s
}

func (e *External) Endpoint() Endpoint { return e.endpoint }

func (e *External) ConnString(database string) string {
	u := *e.url
	u.Path = "/" + database
	return u.String()
}

func (e *External) MaintenanceDB() string { return e.cfg.Database }
func (e *External) User() string          { return e.cfg.User }
func (e *External) Password() string      { return e.cfg.Password }
func (e *External) Version() string       { return e.version }

func (e *External) Describe() string {
	return fmt.Sprintf("PostgreSQL %s at %s:%d (as %s)", e.version, e.cfg.Host, e.cfg.Port, e.cfg.User)
}

func (e *External) CreateDatabase(ctx context.Context) (string, error) { return e.admin.create(ctx) }
func (e *External) DropDatabase(ctx context.Context, name string) error {
	return e.admin.drop(ctx, name)
}

// Close drops every database this value created.
func (e *External) Close() error {
	return e.admin.dropAll(context.Background())
}

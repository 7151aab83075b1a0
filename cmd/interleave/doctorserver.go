package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave/pgserver"
	"github.com/pginterleave/interleave/pgserver/docker"
)

// server provides the server the later checks run against: --docker's
// container, --database-url's (or TEST_DATABASE_URL's) dedicated server,
// or a managed one from local binaries. cleanup closes it and adds the
// cleanup check.
func (d *doctor) server(ctx context.Context, o doctorOptions) (pgserver.Server, func()) {
	if o.docker {
		if d.add(checkDocker(ctx)).Status != "ok" {
			return nil, nil
		}
		start := time.Now()
		srv, err := docker.Provider{Image: o.dockerImage}.Start(ctx, pgserver.ProviderRequest{MaxConnections: 20, TLS: o.upstreamTLS})
		if err != nil {
			d.add(failed("server", "check `docker pull "+o.dockerImage+"` and the engine's logs, or run without --docker", "%v", err))
			return nil, nil
		}
		d.add(ok("server", "%s in a container of %s, ready in %v", srv.Describe(), o.dockerImage, time.Since(start).Round(time.Millisecond)))
		return srv, d.closer(srv, "the container was removed")
	}
	url, from := o.databaseURL, "--database-url"
	if url == "" {
		url, from = os.Getenv("TEST_DATABASE_URL"), "TEST_DATABASE_URL"
	}
	if url != "" {
		return d.dedicated(ctx, url, from, o)
	}
	dir, c := doctorPostgres(o.pgBin)
	if d.add(c).Status != "ok" {
		return nil, nil
	}
	start := time.Now()
	srv, err := pgserver.StartLocal(ctx, pgserver.LocalOptions{BinDir: dir, TLS: o.upstreamTLS, MaxConnections: 20})
	if err != nil {
		d.add(failed("server", "see the server log quoted above; `interleave clean` removes what earlier runs left; or pass --database-url", "the throwaway server did not start: %v", err))
		return nil, nil
	}
	detail := fmt.Sprintf("throwaway %s, started in %v", srv.Describe(), time.Since(start).Round(time.Millisecond))
	if os.Geteuid() == 0 {
		detail += " (running as root: the server ran as an unprivileged account)"
	}
	d.add(ok("server", "%s", detail))
	return srv, d.closer(srv, "the throwaway server was stopped and its directory removed")
}

// dedicated opens a dedicated test server as run does: it must answer and
// let the account create databases.
func (d *doctor) dedicated(ctx context.Context, rawURL, from string, o doctorOptions) (pgserver.Server, func()) {
	var tlsCfg *tls.Config
	if o.upstreamTLS {
		u, err := url.Parse(rawURL)
		if err != nil {
			d.add(failed("server", "give a URL like postgres://user:password@host:5432/postgres", "%s is not a URL", from))
			return nil, nil
		}
		if tlsCfg, err = pgserver.TLSConfig(u.Hostname(), o.upstreamCA); err != nil {
			d.add(failed("upstream-tls", "pass --upstream-ca with a readable PEM file of the CA that signed the server's certificate", "%v", err))
			return nil, nil
		}
	}
	srv, err := pgserver.OpenExternal(ctx, rawURL, tlsCfg)
	if err != nil {
		d.add(failed("server", "check the URL, that the server is up and reachable from here, and that the account has CREATEDB", "%s: %v", from, err))
		return nil, nil
	}
	d.add(ok("server", "dedicated test server %s, from %s", srv.Describe(), from))
	return srv, d.closer(srv, "every database doctor created on it was dropped")
}

func (d *doctor) closer(srv pgserver.Server, done string) func() {
	return func() {
		if err := srv.Close(); err != nil {
			d.add(failed("cleanup", "run `interleave clean` to remove what is left", "%v", err))
			return
		}
		d.add(ok("cleanup", "%s", done))
	}
}

// checkDocker asks the Docker API for a ping, as run --docker does first.
func checkDocker(ctx context.Context) DoctorCheck {
	const fix = "start a Docker engine (Docker Desktop, or `systemctl start docker`), or set DOCKER_HOST to one; or drop --docker: the managed server needs only PostgreSQL's binaries"
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	ping, err := docker.Ping(pctx)
	if errors.Is(err, docker.ErrEnvironment) {
		return failed("docker", fix, "the Docker client could not be configured from the environment: %v", err)
	}
	if err != nil {
		why := err.Error()
		var ne *net.OpError
		if errors.As(err, &ne) {
			why = "nothing answers there"
		}
		return failed("docker", fix, "no Docker engine is reachable at %s (%s), so --docker cannot start a server", ping.Host, why)
	}
	return ok("docker", "the Docker engine at %s answers (API %s, %s)", ping.Host, ping.APIVersion, ping.OSType)
}

// serverChecks create a database, send a query through a gated proxy and
// watch PostgreSQL report a lock wait, then drop the database.
func (d *doctor) serverChecks(ctx context.Context, srv pgserver.Server, upstreamTLS bool) {
	db, err := srv.CreateDatabase(ctx)
	if err != nil {
		d.add(failed("database", "grant the account CREATEDB, or use a server where it may create databases", "create a database: %v", err))
		d.add(skipped("proxy-round-trip", "no database"))
		d.add(skipped("lock-wait", "no database"))
		return
	}
	d.add(ok("database", "created %s for the checks below", db))
	defer func() {
		if err := srv.DropDatabase(context.Background(), db); err != nil {
			d.add(failed("database", "run `interleave clean --database-url URL` to drop what is left", "dropping %s failed: %v", db, err))
		}
	}()
	rt, err := proxyRoundTrip(ctx, srv, db)
	if err != nil {
		d.add(failed("proxy-round-trip", "a firewall or security tool must let this process listen on and connect to 127.0.0.1; if the server uses TLS, pass --upstream-tls", "%v", err))
	} else {
		d.add(ok("proxy-round-trip", "%s", rt.describe()))
	}
	if upstreamTLS {
		switch {
		case err != nil:
			d.add(failed("upstream-tls", "enable ssl on the server and pass --upstream-ca with the CA that signed its certificate, or drop --upstream-tls", "the proxied connection did not complete over TLS: %v", err))
		case rt.tlsVersion == "":
			d.add(failed("upstream-tls", "report this: --upstream-tls was given but the proxy dialled without TLS", "the proxy reached the server without TLS"))
		default:
			d.add(ok("upstream-tls", "the proxy reached the server over %s, its certificate verified in full", rt.tlsVersion))
		}
	}
	if lw, err := lockWait(ctx, srv, db); err != nil {
		d.add(failed("lock-wait", "the account must see its own sessions in pg_stat_activity and call pg_isolation_test_session_is_blocked (PostgreSQL 10 or newer); on a managed server, report this", "%v", err))
	} else {
		d.add(ok("lock-wait", "%s", lw))
	}
}

// directConn connects to database db without a proxy.
func directConn(ctx context.Context, srv pgserver.Server, db string) (*pgx.Conn, error) {
	c, err := pgx.Connect(ctx, srv.ConnString(db))
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %s", db, pgserver.RedactURLError(err))
	}
	return c, nil
}

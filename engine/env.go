package engine

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/capture"
	"github.com/pginterleave/interleave/fingerprint"
	"github.com/pginterleave/interleave/footprint"
	"github.com/pginterleave/interleave/netproxy"
	"github.com/pginterleave/interleave/pgserver"
	"github.com/pginterleave/interleave/sched"
	"github.com/pginterleave/interleave/search"
)

// env is the server side of a run: the server and the options.
type env struct {
	opts   Options
	server pgserver.Server
	shared bool // the caller owns the server

	mu sync.Mutex
	fp *artifact.Fingerprint // program, server and database after setup

	footprints *footprint.Cache // what statements touch, shared by workers

	// noVictimChoice: the server's role may not set deadlock_timeout (a
	// dedicated server's non-superuser role without the SET privilege), so
	// PostgreSQL decides deadlock victims by its own timeout and the search
	// does not offer them as choices.
	noVictimChoice atomic.Bool
	// victimNote says why victims stopped being chosen during the run,
	// when an actor's role could not set deadlock_timeout.
	victimNote atomic.Value

	// serial orders attempts between workers once one of them saw another
	// attempt decide when its actor went on (sched.ErrInterference: a
	// safe-snapshot wait on another worker's serializable transaction;
	// PostgreSQL tracks those across databases). From then on exclusive
	// is set and attempts run one at a time: workers still reset and set
	// up in parallel, but no two attempts' actors overlap.
	serial    sync.RWMutex
	exclusive atomic.Bool
}

// ExclusiveNote is the Result note of a search whose attempts ran one at a
// time after a safe-snapshot wait crossed attempts.
const ExclusiveNote = "a SERIALIZABLE READ ONLY DEFERRABLE transaction waited for a safe snapshot on another attempt's serializable transactions (PostgreSQL tracks them across databases), so from then on attempts ran one at a time; the attempt it happened in ran again"

func openEnv(ctx context.Context, opts Options, workers int) (*env, error) {
	fp, err := fingerprint.Of(fingerprint.Source(opts.Source))
	if err != nil {
		return nil, err
	}
	fp.Profiles = opts.profiles()
	fp.UpstreamTLS = opts.Server.TLS
	return openEnvWith(ctx, opts, workers, fp)
}

// maxConnectionsFor is what a server needs for workers parallel attempts:
// each holds a control and a monitor connection and up to 8 actors with
// several connections each.
func maxConnectionsFor(workers int) int { return 20 + workers*(8*4+4) }

// openEnvWith starts the server side with an already computed program
// fingerprint.
func openEnvWith(ctx context.Context, opts Options, workers int, fp *artifact.Fingerprint) (*env, error) {
	e := &env{opts: opts, fp: fp, footprints: footprint.NewCache()}
	so := opts.Server
	var err error
	switch {
	case so.Use != nil:
		e.server, e.shared = so.Use, true
		return e, nil
	case so.Provider != nil:
		e.server, err = so.Provider.Start(ctx, pgserver.ProviderRequest{MaxConnections: maxConnectionsFor(workers), TLS: so.TLS})
	case so.DatabaseURL != "":
		var tlsCfg *tls.Config
		if so.TLS {
			cfg, perr := pgx.ParseConfig(so.DatabaseURL)
			if perr != nil {
				return nil, fmt.Errorf("the database URL is not valid")
			}
			if tlsCfg, err = pgserver.TLSConfig(cfg.Host, so.CA); err != nil {
				return nil, err
			}
		}
		e.server, err = pgserver.OpenExternal(ctx, so.DatabaseURL, tlsCfg)
	default:
		e.server, err = pgserver.StartLocal(ctx, pgserver.LocalOptions{
			BinDir:         so.PGBin,
			MaxConnections: maxConnectionsFor(workers),
			TLS:            so.TLS,
		})
	}
	if err != nil {
		return nil, err
	}
	if so.TLS {
		// Check the TLS path once, up front, so that a certificate problem is
		// one clear error rather than every actor failing to connect.
		c, err := e.server.Endpoint().Dial(ctx)
		if err != nil {
			e.close()
			return nil, err
		}
		c.Close()
	}
	return e, nil
}

func (e *env) close() error {
	if e.shared {
		return nil
	}
	return e.server.Close()
}

// dialer returns how a proxy reaches the server.
func (e *env) dialer() func(ctx context.Context) (net.Conn, error) {
	return e.server.Endpoint().Dial
}

// worker owns one database and the direct connections an attempt needs.
type worker struct {
	env *env
	db  string
	// setupSchema lists the schema after setup (fingerprint.SchemaLines),
	// read with the first attempt's fingerprint; schemaKnown says it was.
	// reductionTrace compares an attempt that ran a global statement with
	// it: code the classification does not see may have changed the schema.
	setupSchema []string
	schemaKnown bool
	control     *pgx.Conn   // setup, invariant, reset
	tap         *controlTap // what control sends (the invariant's statements)
	monitor     *sched.PGMonitor
	// serverNum is server_version_num.
	serverNum int
	pristine  *pgserver.Pristine
	fresh     bool           // the database has not been used by an attempt yet
	capture   *capture.Arena // reused by every attempt of this worker
	// printDB asks the next attempt to fingerprint the database after setup;
	// checkSetup, when set, judges that fingerprint (exact replay).
	printDB    bool
	checkSetup func(*artifact.DatabasePrint) error
	barrier    *barrier // overlap pairs: makes a pair start together
	// isolation, when set, is every actor session's default isolation
	// level (explain's runs at stronger levels).
	isolation string
	// pids, when set, notes each actor connection's backend pid (a
	// paused replay shows them).
	pids *pidBook
	// sessions keeps each actor's server sessions from one attempt to the
	// next (unless Proxy.FreshSessions); index = actor.
	sessions []*netproxy.Sessions
	// timers is how far the actors' deadlock timeouts are stretched
	// (victims.go): raised when PostgreSQL aborted another victim than
	// the planned one, lowered again after deadlocks that went as planned.
	timers timerScale
}

// keepsSessions says whether actors' sessions are kept from one attempt to
// the next: by default, but not with Proxy.FreshSessions, nor when pairs
// of units are released together (Search.Overlap pairs), where how the two
// statements overlap is PostgreSQL's to decide and kept sessions made the
// duplicate of insert-where-not-exists rarer (found at attempts 3 to 25 of
// six searches, against 3 to 7 with new backends; bench
// TestSleepFreeOneStatementRace).
func (w *worker) keepsSessions() bool {
	return !w.env.opts.Proxy.FreshSessions && w.env.opts.Search.Overlap != search.Pairs
}

// sessionsFor is actor i's kept sessions, nil with fresh sessions.
func (w *worker) sessionsFor(i int) *netproxy.Sessions {
	if !w.keepsSessions() {
		return nil
	}
	for len(w.sessions) <= i {
		w.sessions = append(w.sessions, netproxy.NewSessions(0))
	}
	return w.sessions[i]
}

// keptPids are the backends of every actor's kept sessions.
func (w *worker) keptPids() []uint32 {
	var out []uint32
	for _, s := range w.sessions {
		out = append(out, s.Pids()...)
	}
	return out
}

// sweepSessions ends the kept sessions no connection of the attempt just
// ended took (see netproxy.Sessions.Sweep).
func (w *worker) sweepSessions() {
	for _, s := range w.sessions {
		s.Sweep()
	}
}

// sessionTagSQL summarises what a backend takes from the server when it
// starts and RESET ALL (part of DISCARD ALL) returns it to: the
// database's and roles' settings (ALTER DATABASE/ROLE ... SET, which a
// setup may change), and the roles themselves (a role dropped and created
// again is another role). A session kept under another summary is not
// handed out.
const sessionTagSQL = `SELECT md5(
	coalesce((SELECT string_agg(format('%s %s %s %s %s', oid, rolname, rolsuper, rolcanlogin, rolconnlimit), ',' ORDER BY oid) FROM pg_roles), '')
	|| '|' ||
	coalesce((SELECT string_agg(format('%s %s %s', setdatabase, setrole, setconfig), ',' ORDER BY setdatabase, setrole) FROM pg_db_role_setting), ''))`

// sessionTag is the summary after the attempt's setup, and whether kept
// sessions may be used at all this attempt (not when it cannot be read).
func (w *worker) sessionTag(ctx context.Context) (string, bool) {
	if !w.keepsSessions() {
		return "", false
	}
	var tag string
	if err := w.control.QueryRow(ctx, sessionTagSQL).Scan(&tag); err != nil {
		return "", false
	}
	return tag, true
}

func (e *env) newWorker(ctx context.Context) (_ *worker, err error) {
	db, err := e.server.CreateDatabase(ctx)
	if err != nil {
		return nil, err
	}
	w := &worker{env: e, db: db, fresh: true, capture: capture.NewArena(), printDB: true}
	if e.opts.Capture.Mode == CaptureOff {
		w.capture.Disable()
	}
	defer func() {
		if err != nil {
			w.close(context.Background())
		}
	}()
	if w.control, w.tap, err = connectControl(ctx, e.server.ConnString(db)); err != nil {
		return nil, fmt.Errorf("connect to the attempt database: %w", err)
	}
	if w.pristine, err = pgserver.Snapshot(ctx, w.control); err != nil {
		return nil, err
	}
	e.mu.Lock()
	if e.fp.ServerVersion == "" {
		err = fingerprint.Server(ctx, w.control, e.fp)
	}
	e.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("fingerprint the server: %w", err)
	}
	if w.monitor, err = sched.NewPGMonitor(ctx, e.server.ConnString(e.server.MaintenanceDB())); err != nil {
		return nil, err
	}
	if err := w.control.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&w.serverNum); err != nil {
		return nil, fmt.Errorf("read the server's version: %w", err)
	}
	if _, err := w.control.Exec(ctx, "SET deadlock_timeout = '1s'"); err != nil {
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "42501" { // insufficient_privilege
			return nil, fmt.Errorf("check whether actors' deadlock_timeout can be set: %w", err)
		}
		e.noVictimChoice.Store(true)
	} else if _, err := w.control.Exec(ctx, "RESET deadlock_timeout"); err != nil {
		return nil, err
	}
	return w, nil
}

// reset returns the worker's database to its pristine state and a clean
// control session.
func (w *worker) reset(ctx context.Context) error {
	if w.fresh {
		w.fresh = false
		return nil
	}
	if w.control.IsClosed() {
		c, tap, err := connectControl(ctx, w.env.server.ConnString(w.db))
		if err != nil {
			return fmt.Errorf("reconnect to the attempt database: %w", err)
		}
		w.control, w.tap = c, tap
	}
	if w.control.PgConn().TxStatus() != 'I' {
		if _, err := w.control.Exec(ctx, "ROLLBACK"); err != nil {
			return fmt.Errorf("end the control session's transaction: %w", err)
		}
	}
	if err := w.control.PgConn().Exec(ctx, "DISCARD ALL").Close(); err != nil {
		return fmt.Errorf("reset the control session: %w", err)
	}
	if err := w.control.DeallocateAll(ctx); err != nil {
		return err
	}
	keep := w.keptPids()
	if w.barrier != nil && !w.barrier.conn.IsClosed() && w.barrier.conn.PgConn().TxStatus() == 'I' {
		keep = append(keep, w.barrier.pid)
	}
	return pgserver.ResetDatabase(ctx, w.control, w.db, w.pristine, keep...)
}

// victimOptions gives each connection of an actor its deadlock_timeout for
// the actor's place in the victim order, when the role it connects as may
// set it. An actor that connects as a role of its own (an application
// role, neither superuser nor granted SET on deadlock_timeout) would have
// every connection refused with it: that connection gets no option, and
// from then on no victim is chosen in this run (PostgreSQL's own timeout
// decides, and the search offers no victim choices); the summary says so.
func (w *worker) victimOptions(ctx context.Context, rank int, actor string) func([]string) string {
	opts := w.deadlockOptions(rank, w.timers.level)
	if opts == "" {
		return nil
	}
	setters := w.deadlockSetters(ctx)
	return func(params []string) string {
		user := ""
		for i := 0; i+1 < len(params); i += 2 {
			if params[i] == "user" {
				user = params[i+1]
			}
		}
		if user == "" || setters[user] || (setters == nil && user == w.env.server.User()) {
			return opts
		}
		if w.env.noVictimChoice.CompareAndSwap(false, true) {
			w.env.victimNote.Store(fmt.Sprintf("actor %s connects as role %s, which may not set deadlock_timeout: deadlock victims were left to PostgreSQL's own timeout and not chosen", actor, user))
		}
		return ""
	}
}

// deadlockSetters are the roles that may set deadlock_timeout (superusers,
// and from PostgreSQL 15 roles granted SET on it), read once per attempt
// after setup, which may create roles; nil when they cannot be read.
func (w *worker) deadlockSetters(ctx context.Context) map[string]bool {
	q := `SELECT rolname FROM pg_roles WHERE rolsuper OR has_parameter_privilege(oid, 'deadlock_timeout', 'SET')`
	if w.serverNum < 150000 {
		q = `SELECT rolname FROM pg_roles WHERE rolsuper`
	}
	rows, err := w.control.Query(ctx, q)
	if err != nil {
		return nil
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var r string
		if rows.Scan(&r) == nil {
			out[r] = true
		}
	}
	if rows.Err() != nil {
		return nil
	}
	return out
}

// actorConnString is the connection string an actor gets: its proxy, the
// worker's database, the server's credentials. It carries no options: the
// proxy adds them to the start-up packet (drivers treat options in a
// connection string differently).
func (w *worker) actorConnString(port int) string {
	u := url.URL{Scheme: "postgres", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), Path: "/" + w.db}
	if p := w.env.server.Password(); p != "" {
		u.User = url.UserPassword(w.env.server.User(), p)
	} else {
		u.User = url.User(w.env.server.User())
	}
	u.RawQuery = "sslmode=disable"
	return u.String()
}

func (w *worker) close(ctx context.Context) {
	for _, s := range w.sessions {
		s.Close()
	}
	if w.barrier != nil {
		_ = w.barrier.conn.Close(ctx)
	}
	if w.monitor != nil {
		_ = w.monitor.Close(ctx)
	}
	if w.control != nil {
		_ = w.control.Close(ctx)
	}
	_ = w.env.server.DropDatabase(ctx, w.db)
}

// fingerprint returns a copy of the run's fingerprint.
func (e *env) fingerprint() *artifact.Fingerprint {
	e.mu.Lock()
	defer e.mu.Unlock()
	c := *e.fp
	return &c
}

// noteDatabase records the database fingerprint after setup the first time
// it is computed, and returns the recorded one.
func (e *env) noteDatabase(p *artifact.DatabasePrint) *artifact.DatabasePrint {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fp.Database == nil {
		e.fp.Database = p
	}
	return e.fp.Database
}

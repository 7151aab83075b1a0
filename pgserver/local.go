package pgserver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave/supervise"
)

// LocalOptions configures a managed throwaway cluster.
type LocalOptions struct {
	// BinDir holds initdb and postgres; empty means FindBinDir("").
	BinDir string
	// MaxConnections sets max_connections; 0 means 100.
	MaxConnections int
	// Auth is the authentication method for every connection: "trust"
	// (default), "scram-sha-256" or "md5". With a password method the cluster
	// gets a random password, available from Password().
	Auth string
	// Settings are extra server settings (name -> value), applied last.
	Settings map[string]string
	// TLS turns on ssl with a throwaway CA; Endpoint then speaks TLS over
	// loopback TCP, verified against that CA (see CAFile).
	TLS bool
	// Logf, when set, receives progress lines.
	Logf func(format string, args ...any)
}

// Local is a managed cluster in a private temporary directory. Close stops
// it and removes the directory.
type Local struct {
	binDir   string
	root     string // temp dir: data/, socket, log
	sockDir  string
	port     int
	user     string
	password string
	version  string
	caFile   string
	cmd      *exec.Cmd
	exited   chan struct{}
	exitErr  error
	admin    *admin

	closeOnce sync.Once
	closeErr  error
	closing   atomic.Bool // Close is stopping the server: not a termination
}

// testSpeedSettings trade durability for speed: the cluster is thrown away.
// autovacuum is off so that no background session takes locks an attempt
// could wait on; deadlock_timeout is low (actors' connections bring their
// own, which decides a deadlock's victim).
var testSpeedSettings = [][2]string{
	{"fsync", "off"},
	{"synchronous_commit", "off"},
	{"full_page_writes", "off"},
	{"autovacuum", "off"},
	{"jit", "off"},
	{"deadlock_timeout", "100ms"},
	{"lc_messages", "C"},
	{"shared_buffers", "32MB"},
	{"max_wal_size", "1GB"},
	{"checkpoint_timeout", "1h"},
	{"log_min_messages", "warning"},
}

// TestSpeedSettings returns the settings of every throwaway server
// (name, value), for servers started some other way (a container).
func TestSpeedSettings() [][2]string { return append([][2]string(nil), testSpeedSettings...) }

// StartLocal initialises and starts a throwaway cluster. On error nothing is
// left behind.
func StartLocal(ctx context.Context, opts LocalOptions) (_ *Local, err error) {
	sweepLeftoversOnce(opts.Logf)
	bin, err := FindBinDir(opts.BinDir)
	if err != nil {
		return nil, err
	}
	if err := checkServerAccount(); err != nil {
		return nil, err
	}
	runAs, err := serverAccount()
	if err != nil {
		return nil, err
	}
	root, err := makeRoot(runAs)
	if err != nil {
		return nil, err
	}
	l := &Local{binDir: bin, root: root, sockDir: root, user: "postgres", exited: make(chan struct{})}
	defer func() {
		if err != nil {
			_ = supervise.RemoveAll(root)
		}
	}()
	if opts.Auth == "" {
		opts.Auth = "trust"
	}
	if err := l.initdb(ctx, runAs, opts.Auth); err != nil {
		return nil, err
	}
	if opts.TLS {
		if l.caFile, err = writeTestCertificates(root, runAs); err != nil {
			return nil, fmt.Errorf("create the throwaway server's certificates: %w", err)
		}
		if opts.Settings == nil {
			opts.Settings = map[string]string{}
		}
		opts.Settings["ssl"] = "on"
		opts.Settings["ssl_cert_file"] = filepath.Join(root, "server.crt")
		opts.Settings["ssl_key_file"] = filepath.Join(root, "server.key")
	}
	if err := l.start(ctx, runAs, opts); err != nil {
		return nil, err
	}
	if opts.Auth == "md5" {
		// initdb stores a SCRAM secret (and md5 authentication accepts it by
		// running SCRAM); store an md5 one so that md5 really is used.
		if err := l.storeMD5Password(ctx); err != nil {
			l.stop()
			return nil, err
		}
	}
	l.admin = newAdmin(l.ConnString("postgres"))
	if v, err := l.queryVersion(ctx); err == nil {
		l.version = v
	}
	return l, nil
}

// serverAccount is the account the server runs as: the current user, or an
// unprivileged one when running as root (initdb and postgres refuse root).
func serverAccount() (*account, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		uid, gid, ok := lookupAccount(name)
		if ok {
			return &account{Uid: uid, Gid: gid}, nil
		}
	}
	return nil, errors.New("running as root, and neither a postgres nor a nobody account exists to run PostgreSQL as; create one (useradd postgres) or run as an ordinary user")
}

func makeRoot(runAs *account) (string, error) {
	base := os.TempDir()
	// The socket path is limited to about 103 bytes, and the server's account
	// must be able to reach the directory.
	if unixSockets && (len(base) > 60 || (runAs != nil && !worldSearchable(base))) {
		base = "/tmp"
	}
	// The directory carries an owner record: if this process dies with the
	// watchdog, the next run or `interleave clean` removes it.
	root, err := supervise.MkdirTemp(base, "interleave-pg-")
	if err != nil {
		return "", fmt.Errorf("create a temporary directory for PostgreSQL: %w", err)
	}
	if runAs != nil {
		if err := os.Chown(root, int(runAs.Uid), int(runAs.Gid)); err != nil {
			_ = supervise.RemoveAll(root)
			return "", fmt.Errorf("hand %s to the server account: %w", root, err)
		}
	}
	return root, nil
}

func worldSearchable(dir string) bool {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	for d := dir; ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err != nil || st.Mode().Perm()&0o001 == 0 {
			return false
		}
		if d == "/" || d == "." {
			return true
		}
	}
}

func (l *Local) dataDir() string { return filepath.Join(l.root, "data") }

// socketSetting is unix_socket_directories: the private directory, or none
// where the managed server is reached over loopback TCP only.
func (l *Local) socketSetting() string {
	if !unixSockets {
		return ""
	}
	return l.sockDir
}
func (l *Local) logPath() string { return filepath.Join(l.root, "postgres.log") }

func (l *Local) initdb(ctx context.Context, runAs *account, auth string) error {
	args := []string{"-D", l.dataDir(), "-U", l.user, "--no-sync", "-E", "UTF8", "--locale=C"}
	if auth == "trust" {
		args = append(args, "-A", "trust")
	} else {
		l.password = newDatabaseName()[len("interleave_"):]
		pwfile := filepath.Join(l.root, "pwfile")
		if err := os.WriteFile(pwfile, []byte(l.password+"\n"), 0o600); err != nil {
			return err
		}
		if runAs != nil {
			_ = os.Chown(pwfile, int(runAs.Uid), int(runAs.Gid))
		}
		defer os.Remove(pwfile)
		args = append(args, "-A", auth, "--pwfile", pwfile)
	}
	cmd := exec.CommandContext(ctx, filepath.Join(l.binDir, exe("initdb")), args...)
	runAs.apply(cmd)
	supervise.Prepare(cmd, supervise.InDir(l.root))
	cmd.Env = serverEnv()
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := supervise.Run(cmd); err != nil {
		if runAs != nil && errors.Is(err, fs.ErrPermission) && !worldSearchable(l.binDir) {
			return fmt.Errorf("initdb failed: PostgreSQL's binaries in %s cannot be run by uid %d, the account the server runs as when Interleave runs as root (a directory above them is not searchable by others); put them in a directory every user can reach (for example /usr/local/pgsql or /var/cache), or run as an ordinary user", l.binDir, runAs.Uid)
		}
		return fmt.Errorf("initdb failed (%v): %s", err, tail(out.String(), 800))
	}
	return nil
}

func serverEnv() []string {
	env := []string{"LC_ALL=C", "LANG=C"}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PATH=") || strings.HasPrefix(kv, "LD_LIBRARY_PATH=") {
			env = append(env, kv)
		}
	}
	return env
}

func (l *Local) start(ctx context.Context, runAs *account, opts LocalOptions) error {
	maxConn := opts.MaxConnections
	if maxConn <= 0 {
		maxConn = 100
	}
	var lastErr error
	for try := 0; try < 5; try++ {
		port, err := freePort()
		if err != nil {
			return err
		}
		l.port = port
		args := []string{"-D", l.dataDir(), "-c", "unix_socket_directories=" + l.socketSetting(), "-p", strconv.Itoa(port),
			"-c", "listen_addresses=127.0.0.1", "-c", "max_connections=" + strconv.Itoa(maxConn)}
		for _, kv := range testSpeedSettings {
			args = append(args, "-c", kv[0]+"="+kv[1])
		}
		for k, v := range opts.Settings {
			args = append(args, "-c", k+"="+v)
		}
		logf, err := os.OpenFile(l.logPath(), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			return err
		}
		cmd := exec.Command(filepath.Join(l.binDir, exe("postgres")), args...)
		cmd.Stdout, cmd.Stderr = logf, logf
		cmd.Env = serverEnv()
		// Supervised: a kill domain of its own (a terminal's Ctrl+C reaches
		// us, not the server, so that shutdown happens in order), and if this
		// process dies the server gets an immediate shutdown (SIGQUIT, then
		// a kill after 5s) and its directory is removed.
		runAs.apply(cmd)
		supervise.Prepare(cmd, supervise.StopWith(quitSignal, 5*time.Second), supervise.InDir(l.root))
		if err := supervise.Start(cmd); err != nil {
			logf.Close()
			return fmt.Errorf("start postgres: %w", err)
		}
		logf.Close()
		l.cmd = cmd
		l.exited = make(chan struct{})
		go func(ch chan struct{}) { l.exitErr = supervise.Wait(cmd); close(ch) }(l.exited)
		err = l.waitReady(ctx)
		if err == nil {
			return nil
		}
		l.stop()
		lastErr = err
		log, _ := os.ReadFile(l.logPath())
		if !strings.Contains(string(log), "could not bind") && !strings.Contains(string(log), "already in use") {
			return err
		}
	}
	return lastErr
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free loopback port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func (l *Local) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-l.exited:
			log, _ := os.ReadFile(l.logPath())
			return fmt.Errorf("postgres exited during start-up: %s", tail(string(log), 800))
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		c, err := pgx.Connect(cctx, l.ConnString("postgres"))
		cancel()
		if err == nil {
			_ = c.Close(ctx)
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres did not accept connections within 60s: %w", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (l *Local) queryVersion(ctx context.Context) (string, error) {
	c, err := pgx.Connect(ctx, l.ConnString("postgres"))
	if err != nil {
		return "", err
	}
	defer c.Close(ctx)
	var v string
	err = c.QueryRow(ctx, "SHOW server_version").Scan(&v)
	return v, err
}

// Endpoint is the server's Unix socket, or with TLS its loopback port.
func (l *Local) Endpoint() Endpoint {
	if l.caFile != "" {
		cfg, err := TLSConfig("127.0.0.1", l.caFile)
		if err == nil {
			return Endpoint{Network: "tcp", Address: "127.0.0.1:" + strconv.Itoa(l.port), TLS: cfg}
		}
	}
	if !unixSockets {
		return Endpoint{Network: "tcp", Address: "127.0.0.1:" + strconv.Itoa(l.port)}
	}
	return Endpoint{Network: "unix", Address: filepath.Join(l.sockDir, ".s.PGSQL."+strconv.Itoa(l.port))}
}

// CAFile is the throwaway CA's certificate when the server runs with TLS.
func (l *Local) CAFile() string { return l.caFile }

// ConnString connects over the private Unix socket.
func (l *Local) ConnString(database string) string {
	u := url.URL{Scheme: "postgres", Path: "/" + database}
	if l.password != "" {
		u.User = url.UserPassword(l.user, l.password)
	} else {
		u.User = url.User(l.user)
	}
	host := l.sockDir
	if !unixSockets {
		host = "127.0.0.1"
	}
	q := url.Values{"host": {host}, "port": {strconv.Itoa(l.port)}, "sslmode": {"disable"}}
	u.RawQuery = q.Encode()
	return u.String()
}

func (l *Local) MaintenanceDB() string { return "postgres" }
func (l *Local) User() string          { return l.user }
func (l *Local) Password() string      { return l.password }

// Port is the loopback TCP port the server also listens on.
func (l *Local) Port() int { return l.port }

// Root is the private directory holding the cluster.
func (l *Local) Root() string { return l.root }

// Pid is the postmaster's process id.
func (l *Local) Pid() int { return l.cmd.Process.Pid }

// Version is the server_version setting.
func (l *Local) Version() string { return l.version }

func (l *Local) Describe() string {
	return fmt.Sprintf("managed PostgreSQL %s (%s, 127.0.0.1:%d)", l.version, l.binDir, l.port)
}

func (l *Local) CreateDatabase(ctx context.Context) (string, error) { return l.admin.create(ctx) }
func (l *Local) DropDatabase(ctx context.Context, name string) error {
	return l.admin.drop(ctx, name)
}

// Close stops the server and removes its directory. It is safe to call more
// than once and from a signal path.
func (l *Local) Close() error {
	l.closing.Store(true)
	l.closeOnce.Do(func() {
		if l.admin != nil {
			l.admin.mu.Lock()
			if l.admin.conn != nil {
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				_ = l.admin.conn.Close(ctx)
				cancel()
				l.admin.conn = nil
			}
			l.admin.mu.Unlock()
		}
		l.stop()
		l.closeErr = supervise.RemoveAll(l.root)
	})
	return l.closeErr
}

func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		s = "..." + s[len(s)-n:]
	}
	return s
}

func (l *Local) storeMD5Password(ctx context.Context) error {
	c, err := pgx.Connect(ctx, l.ConnString("postgres"))
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	_, err = c.Exec(ctx, "SET password_encryption = 'md5'; ALTER ROLE "+pgx.Identifier{l.user}.Sanitize()+" PASSWORD '"+l.password+"'")
	return err
}

// exitedCh implements TerminatedWithin.
func (l *Local) exitedCh() <-chan struct{} { return l.exited }

// terminated implements Terminated.
func (l *Local) terminated() error {
	select {
	case <-l.exited:
	default:
		return nil
	}
	if l.closing.Load() {
		return nil
	}
	log, _ := os.ReadFile(l.logPath())
	return fmt.Errorf("PostgreSQL terminated (%v); the end of its log: %s", l.exitErr, tail(string(log), 800))
}

package scenario

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave/internal/redact"
	"github.com/pginterleave/interleave/supervise"
)

// directEnv is the environment of setup and invariant commands: the direct
// connection's coordinates (the same variables command actors get for their
// proxy), and no inherited PG* or *DATABASE_URL variable.
func directEnv(db *pgx.Conn) (env []string, password string) {
	cfg := db.Config()
	port := strconv.Itoa(int(cfg.Port))
	sslmode := "disable"
	if cfg.TLSConfig != nil {
		sslmode = "require"
	}
	u := url.URL{Scheme: "postgres", Path: "/" + cfg.Database}
	if cfg.Password != "" {
		u.User = url.UserPassword(cfg.User, cfg.Password)
	} else {
		u.User = url.User(cfg.User)
	}
	q := url.Values{"sslmode": {sslmode}}
	if strings.HasPrefix(cfg.Host, "/") { // a Unix socket directory
		q.Set("host", cfg.Host)
		q.Set("port", port)
	} else {
		u.Host = net.JoinHostPort(cfg.Host, port)
	}
	u.RawQuery = q.Encode()
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "PG") || strings.HasSuffix(k, "DATABASE_URL") || k == "INTERLEAVE_ACTOR" {
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"DATABASE_URL="+u.String(),
		"PGHOST="+cfg.Host,
		"PGPORT="+port,
		"PGDATABASE="+cfg.Database,
		"PGUSER="+cfg.User,
		"PGSSLMODE="+sslmode,
	)
	if cfg.Password != "" {
		env = append(env, "PGPASSWORD="+cfg.Password)
	}
	return env, cfg.Password
}

const stderrTail = 4 << 10

// runCommand runs cmd in its own process group (killed with the group when
// ctx ends); a non-zero exit is an error carrying the tail of stderr, the
// password redacted. Its stdout is not kept (setup and invariant commands
// say what they have to say through their exit status and stderr), and
// only the tail of stderr is held in memory.
func runCommand(ctx context.Context, cmd command, env []string, password string) error {
	c := exec.CommandContext(ctx, cmd.argv[0], cmd.argv[1:]...)
	c.Dir = cmd.dir
	c.Env = append(append([]string{}, env...), cmd.env...)
	supervise.Prepare(c) // own kill domain; cancellation kills the tree; never outlives us
	c.WaitDelay = 2 * time.Second
	stderr := &tailWriter{max: stderrTail}
	c.Stdout, c.Stderr = io.Discard, stderr
	err := supervise.Run(c) // kills the children it left behind
	tail := strings.TrimSpace(redact.Password(password).String(string(stderr.buf)))
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("killed when the attempt ended: %w", ctx.Err())
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if tail != "" {
				return fmt.Errorf("exit status %d: %s", ee.ExitCode(), tail)
			}
			return fmt.Errorf("exit status %d", ee.ExitCode())
		}
		return err
	}
	return nil
}

// tailWriter keeps the last max bytes written.
type tailWriter struct {
	buf []byte
	max int
}

func (t *tailWriter) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

package scenario

import (
	"bytes"
	"context"
	"errors"
	"fmt"
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
// ctx ends) and returns its stdout; a non-zero exit is an error carrying
// the tail of stderr, the password redacted.
func runCommand(ctx context.Context, cmd command, env []string, password string) ([]byte, error) {
	c := exec.CommandContext(ctx, cmd.argv[0], cmd.argv[1:]...)
	c.Dir = cmd.dir
	c.Env = append(append([]string{}, env...), cmd.env...)
	supervise.Prepare(c) // own kill domain; cancellation kills the tree; never outlives us
	c.WaitDelay = 2 * time.Second
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	err := supervise.Run(c) // kills the children it left behind
	tail := stderr.String()
	if len(tail) > stderrTail {
		tail = tail[len(tail)-stderrTail:]
	}
	tail = strings.TrimSpace(redact.Password(password).String(tail))
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("killed when the attempt ended: %w", ctx.Err())
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if tail != "" {
				return nil, fmt.Errorf("exit status %d: %s", ee.ExitCode(), tail)
			}
			return nil, fmt.Errorf("exit status %d", ee.ExitCode())
		}
		return nil, err
	}
	return stdout.Bytes(), nil
}

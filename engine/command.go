package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/pginterleave/interleave/supervise"
)

// CommandOptions configure a command actor.
type CommandOptions struct {
	Dir string   // working directory (default: the current one)
	Env []string // extra NAME=value variables, applied last
}

// maxCommandOutput bounds what is kept of a command's stdout (its result)
// and stderr (the tail shown on failure).
const (
	maxCommandOutput = 1 << 20
	stderrTail       = 4 << 10
)

// CommandActor is an actor that runs a program in any language. The program
// reaches its proxy through DATABASE_URL and PGHOST, PGPORT, PGDATABASE,
// PGUSER, PGPASSWORD and PGSSLMODE=disable; INTERLEAVE_ACTOR names it. Every
// other inherited PG* and *DATABASE_URL variable is removed, so that nothing
// reaches the server around the proxy. Its stdout may carry one JSON value,
// its result; a non-zero exit is an actor error with the tail of stderr
// (passwords redacted). It runs in a process group of its own, killed with
// the group when the attempt ends or is cancelled.
func CommandActor(name string, argv []string, opts CommandOptions) Actor {
	return Actor{Name: name, Run: func(ctx context.Context, connString string) (any, error) {
		return runCommand(ctx, name, argv, opts, connString)
	}}
}

func runCommand(ctx context.Context, name string, argv []string, opts CommandOptions, connString string) (any, error) {
	if len(argv) == 0 {
		return nil, errors.New("command actor with no command")
	}
	env, password, err := commandEnv(name, connString, opts.Env)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = opts.Dir
	cmd.Env = env
	supervise.Prepare(cmd) // own kill domain; cancellation kills the tree; never outlives us
	cmd.WaitDelay = 2 * time.Second
	var stdout limitedBuffer
	var stderr tailBuffer
	stdout.max, stderr.max = maxCommandOutput, stderrTail
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = supervise.Run(cmd) // kills the children it left behind
	tail := strings.TrimSpace(stderr.String())
	if password != "" {
		tail = strings.ReplaceAll(tail, password, "REDACTED")
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s was killed when the attempt ended: %w", argv[0], ctx.Err())
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if tail != "" {
				return nil, fmt.Errorf("%s exited with status %d: %s", argv[0], ee.ExitCode(), tail)
			}
			return nil, fmt.Errorf("%s exited with status %d", argv[0], ee.ExitCode())
		}
		return nil, fmt.Errorf("run %s: %w", argv[0], err)
	}
	out := bytes.TrimSpace(stdout.Bytes())
	if len(out) == 0 {
		return nil, nil
	}
	if json.Valid(out) {
		return json.RawMessage(append([]byte(nil), out...)), nil
	}
	return string(out), nil
}

// commandEnv is the environment of a command actor.
func commandEnv(name, connString string, extra []string) ([]string, string, error) {
	u, err := url.Parse(connString)
	if err != nil {
		return nil, "", err
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "PG") || strings.HasSuffix(k, "DATABASE_URL") || k == "INTERLEAVE_ACTOR" {
			continue
		}
		env = append(env, kv)
	}
	password, _ := u.User.Password()
	env = append(env,
		"DATABASE_URL="+connString,
		"PGHOST="+u.Hostname(),
		"PGPORT="+u.Port(),
		"PGDATABASE="+strings.TrimPrefix(u.Path, "/"),
		"PGUSER="+u.User.Username(),
		"PGSSLMODE=disable",
		"INTERLEAVE_ACTOR="+name,
	)
	if password != "" {
		env = append(env, "PGPASSWORD="+password)
	}
	if o := u.Query().Get("options"); o != "" {
		env = append(env, "PGOPTIONS="+o) // the deadlock-victim order (libpq reads it)
	}
	return append(env, extra...), password, nil
}

type limitedBuffer struct {
	bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		if len(p) > room {
			b.Buffer.Write(p[:room])
		} else {
			b.Buffer.Write(p)
		}
	}
	return len(p), nil
}

// tailBuffer keeps the last max bytes written.
type tailBuffer struct {
	buf []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return string(t.buf) }

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

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/internal/redact"
	"github.com/pginterleave/interleave/supervise"
)

// CommandOptions configure a command actor.
type CommandOptions struct {
	Dir string   // working directory (default: the current one)
	Env []string // extra NAME=value variables, applied last
}

// stderrTail is how much of a command's stderr an error keeps (its end).
// Its stdout, its result, is kept up to artifact.MaxActorValue.
const stderrTail = 4 << 10

// CommandActor is an actor that runs a program in any language. The program
// reaches its proxy through DATABASE_URL and PGHOST, PGPORT, PGDATABASE,
// PGUSER, PGPASSWORD and PGSSLMODE=disable; INTERLEAVE_ACTOR names it. Every
// other inherited PG* and *DATABASE_URL variable is removed, so that nothing
// reaches the server around the proxy. Its stdout may carry one JSON value,
// its result (at most artifact.MaxActorValue: more is cut, and the result
// says so); a non-zero exit is an actor error with the tail of stderr. The
// password is removed from both. It runs in a process group of its own, killed with
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
	if err := checkDir(opts.Dir); err != nil {
		return nil, err
	}
	secrets := redact.Password(password)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = opts.Dir
	cmd.Env = env
	supervise.Prepare(cmd) // own kill domain; cancellation kills the tree; never outlives us
	cmd.WaitDelay = 2 * time.Second
	var stdout limitedBuffer
	var stderr tailBuffer
	// A little more than the limit is read, so that a password across the
	// cut is still whole when it is removed.
	stdout.max, stderr.max = artifact.MaxActorValue+4<<10, stderrTail
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = supervise.Run(cmd) // kills the children it left behind
	tail := strings.TrimSpace(secrets.String(stderr.String()))
	if stderr.dropped > 0 && tail != "" {
		tail = fmt.Sprintf("[the last %d of %d bytes of stderr] %s", len(stderr.buf), stderr.dropped+len(stderr.buf), tail)
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
	if stdout.total > artifact.MaxActorValue {
		kept := secrets.String(stdout.String())
		return artifact.CutOutput(kept, stdout.total-stdout.Len()+len(kept)), nil
	}
	out := bytes.TrimSpace(stdout.Bytes())
	if len(out) == 0 {
		return nil, nil
	}
	if json.Valid(out) {
		return json.RawMessage(secrets.JSON(append([]byte(nil), out...))), nil
	}
	return secrets.String(string(out)), nil
}

// checkDir says clearly that a command's working directory is missing
// (exec says only that the program was not found).
func checkDir(dir string) error {
	if dir == "" {
		return nil
	}
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		return fmt.Errorf("the working directory %s does not exist", dir)
	case !st.IsDir():
		return fmt.Errorf("the working directory %s is not a directory", dir)
	}
	return nil
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
	return append(env, extra...), password, nil
}

// limitedBuffer keeps the first max bytes written and counts them all.
// (It does not embed a bytes.Buffer: exec would copy into its ReadFrom,
// around the limit.)
type limitedBuffer struct {
	buf        bytes.Buffer
	max, total int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.total += len(p)
	if room := b.max - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (b *limitedBuffer) Bytes() []byte  { return b.buf.Bytes() }
func (b *limitedBuffer) String() string { return b.buf.String() }
func (b *limitedBuffer) Len() int       { return b.buf.Len() }

// tailBuffer keeps the last max bytes written and counts the others.
type tailBuffer struct {
	buf          []byte
	max, dropped int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.dropped += len(t.buf) - t.max
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return string(t.buf) }

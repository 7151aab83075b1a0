package scenario

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/scenario/jshost"
)

// JSOptions configure LoadJSWith.
type JSOptions struct {
	// Output receives the Node processes' stdout and stderr (the
	// scenario's console.log), each line prefixed with "node: "; nil
	// discards them. The tail is kept either way for error messages.
	Output io.Writer
}

// loadTimeout bounds loading the module in the first Node process.
const loadTimeout = 2 * time.Minute

// LoadJS loads a JavaScript scenario module (scenario.mjs: a default export
// of defineScenario({ name, setup, actors, invariant }), as written for the
// original JavaScript tool) into a Node process and returns it ready to
// run. Close the result: it stops the Node processes.
//
// The module may import defineScenario from '@pavangupta352/interleave'
// (the original package) or '@pginterleave/interleave'; both resolve to a
// module this binary ships. setup and the invariant get a node-postgres
// Client, so 'pg' must be installed beside the module (npm install).
// Options carry no defaults (a module has no options block) but
// SourceFiles: the module, the local modules it imports, the nearest
// package.json and lockfile.
func LoadJS(path string) (*Loaded, error) { return LoadJSWith(path, JSOptions{}) }

// LoadJSWith is LoadJS with options.
func LoadJSWith(path string, o JSOptions) (*Loaded, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("JavaScript scenario %s: %w", path, unwrapPath(err))
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	ctx, cancel := context.WithTimeout(context.Background(), loadTimeout)
	defer cancel()
	host, desc, err := jshost.Start(ctx, abs, jshost.Options{Output: o.Output})
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(abs)
	files := jsSourceFiles(abs, desc.Modules)
	return &Loaded{
		Path:        path,
		Scenario:    jsScenario(host, desc),
		Options:     interleave.Options{Source: interleave.SourceOptions{Files: files, Root: dir, Runtime: "Node.js " + desc.Node}},
		SourceFiles: files,
		SourceRoot:  dir,
		Runtime:     "Node.js " + desc.Node,
		close:       host.Close,
	}, nil
}

// Close stops what loading the scenario started: for a JavaScript
// scenario its Node processes, which must not outlive the program. The
// Scenario must not run afterwards. Close is safe to call more than once,
// and a no-op for YAML scenarios.
func (l *Loaded) Close() error {
	if l == nil || l.close == nil {
		return nil
	}
	return l.close()
}

// jsScenario drives the module's functions through h. Each call is routed
// to the Node process of the attempt's database (its name: in the direct
// connection's configuration, in the path of an actor's proxy URL), which
// is one process per search worker.
func jsScenario(h *jshost.Host, d *jshost.Description) interleave.Scenario {
	sc := interleave.Scenario{
		Name: d.Name,
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			return h.Setup(ctx, db.Config().Database, directDB(db))
		},
		Invariant: func(ctx context.Context, db *pgx.Conn, results []interleave.ActorResult) error {
			return invariantError(h.Invariant(ctx, db.Config().Database, directDB(db), jsResults(results)))
		},
		// The Node process reads the database on connections of its own.
		InvariantConnects: true,
	}
	for _, id := range d.Actors {
		sc.Actors = append(sc.Actors, interleave.Actor{
			Name: id,
			Run: func(ctx context.Context, connString string) (any, error) {
				v, err := h.Actor(ctx, databaseOf(connString), id, connString)
				if err != nil {
					return nil, actorError(err)
				}
				if v == nil { // undefined: no value, as in the original tool
					return nil, nil
				}
				return v, nil
			},
		})
	}
	return sc
}

// directDB is the direct connection setup and the invariant receive: the
// control connection's coordinates (the same URL setup and invariant
// commands of YAML files get), and node-postgres options for it.
func directDB(db *pgx.Conn) jshost.DB {
	cfg := db.Config()
	env, _ := directEnv(db)
	var connString string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "DATABASE_URL="); ok {
			connString = v
		}
	}
	opts := map[string]any{
		"host":     cfg.Host,
		"port":     int(cfg.Port),
		"user":     cfg.User,
		"database": cfg.Database,
	}
	if cfg.Password != "" {
		opts["password"] = cfg.Password
	}
	if t := cfg.TLSConfig; t != nil {
		ssl := map[string]any{"rejectUnauthorized": !t.InsecureSkipVerify}
		if t.ServerName != "" {
			ssl["servername"] = t.ServerName
		}
		opts["ssl"] = ssl
	}
	return jshost.DB{ConnectionString: connString, Options: opts}
}

// databaseOf is the database an actor's proxy URL names.
func databaseOf(connString string) string {
	u, err := url.Parse(connString)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(u.Path, "/")
}

func jsResults(results []interleave.ActorResult) []jshost.Result {
	out := make([]jshost.Result, len(results))
	for i, r := range results {
		out[i] = jshost.Result{Actor: r.Actor, Err: r.Err}
		if v, ok := r.Value.(json.RawMessage); ok {
			out[i].Value = v
		}
	}
	return out
}

// harnessError is a failure of the JavaScript host rather than of the
// scenario's code: it matches interleave.ErrHarness without adding that
// error's words to the message.
type harnessError struct{ err error }

func (e *harnessError) Error() string   { return e.err.Error() }
func (e *harnessError) Unwrap() []error { return []error{e.err, interleave.ErrHarness} }

// invariantError maps the invariant's answer: a node:assert AssertionError
// is the violation (its message is the failure message); anything else it
// threw, or the host failing, means the attempt could not be judged.
func invariantError(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var se *jshost.ScriptError
	if errors.As(err, &se) {
		if se.Assertion() {
			return errors.New(se.Message)
		}
		return &harnessError{fmt.Errorf("the invariant threw %s, which is not a node:assert AssertionError, so it could not judge the attempt", se.Error())}
	}
	return &harnessError{err}
}

// actorError keeps what the actor threw as the actor's error; a value JSON
// cannot hold and a host that died are failures of the harness (they
// match interleave.ErrHarness).
func actorError(err error) error {
	var se *jshost.ScriptError
	if errors.As(err, &se) && se.Kind != "value" {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &harnessError{err}
}

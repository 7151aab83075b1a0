package jshost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// ErrNoNode is returned by Start when no node executable is on PATH.
var ErrNoNode = errors.New("Node.js was not found on PATH; install Node.js 20.6 or newer (https://nodejs.org, or your system's nodejs package) to run JavaScript scenarios")

// ErrClosed is returned by calls on a closed Host.
var ErrClosed = errors.New("the JavaScript scenario was closed")

// takeOverAfter is how long a database's process must have been idle
// before another database may take it over: a search worker sends its next
// request within milliseconds (the reset of its database), so a process
// idle this long belongs to a worker that has finished. (A variable for
// tests.)
var takeOverAfter = 2 * time.Second

// Options configure a Host.
type Options struct {
	// Output receives the Node processes' stdout and stderr (the scenario's
	// console.log), line by line, each line prefixed with "node: "; nil
	// discards them. The last 4 KiB of each process are kept either way for
	// the message that explains an unexpected end.
	Output io.Writer
}

// Host runs one scenario module in Node processes, one per attempt
// database (see the package documentation).
type Host struct {
	node     string
	scenario string // absolute path
	file     string // base name, for messages
	files    *files
	desc     *Description
	opts     Options
	fwdMu    sync.Mutex

	mu      sync.Mutex
	procs   []*process
	closed  bool
	secrets []string
}

// Start loads the scenario module at path in a first Node process and
// returns the Host and what the module defines. Close the Host.
func Start(ctx context.Context, path string, opts Options) (*Host, *Description, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, nil, err
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, nil, ErrNoNode
	}
	if err := checkNodeVersion(ctx, node); err != nil {
		return nil, nil, err
	}
	f, err := writeFiles()
	if err != nil {
		return nil, nil, fmt.Errorf("write the Node host's files: %w", err)
	}
	h := &Host{node: node, scenario: abs, file: filepath.Base(abs), files: f, opts: opts}
	p := h.newProcess("")
	h.procs = append(h.procs, p)
	if err := h.launch(ctx, p); err != nil {
		h.Close()
		return nil, nil, err
	}
	return h, h.desc, nil
}

func (h *Host) newProcess(key string) *process {
	return &process{
		file:    h.file,
		key:     key,
		pending: map[uint64]chan response{},
		hello:   make(chan response, 1),
		done:    make(chan struct{}),
		ready:   make(chan struct{}),
		output:  &outputTail{prefix: "node: ", forward: h.opts.Output, fwdMu: &h.fwdMu, redact: h.redact},
	}
}

// launch starts p and waits for its hello; the first process's hello
// becomes the Host's description, later ones must match it.
func (h *Host) launch(ctx context.Context, p *process) (err error) {
	defer func() {
		h.mu.Lock()
		p.startErr = err
		if err != nil {
			h.procs = slices.DeleteFunc(h.procs, func(q *process) bool { return q == p })
		}
		close(p.ready)
		h.mu.Unlock()
	}()
	if err := p.start(h.node, h.files, h.scenario); err != nil {
		return err
	}
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed { // Close ran while it started: it must not outlive the Host
		p.stop()
		return ErrClosed
	}
	d, err := p.awaitHello(ctx)
	if err == nil {
		err = h.sameScenario(d)
	}
	if err != nil {
		p.stop()
		return err
	}
	return nil
}

func (h *Host) sameScenario(d *Description) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.desc == nil {
		h.desc = d
		return nil
	}
	if d.Name != h.desc.Name || !slices.Equal(d.Actors, h.desc.Actors) {
		return fmt.Errorf("%s changed while Interleave was running it (it now defines scenario %q with actors %s); run the command again", h.file, d.Name, strings.Join(d.Actors, ", "))
	}
	return nil
}

// get returns the process for the database key, taking over an idle one or
// starting one when there is none; release it after the call.
func (h *Host) get(ctx context.Context, key string) (*process, error) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, ErrClosed
	}
	h.procs = slices.DeleteFunc(h.procs, func(p *process) bool { return p.dead() })
	p := h.find(key)
	started := p == nil
	if started {
		p = h.newProcess(key)
		h.procs = append(h.procs, p)
	}
	p.inflight++
	h.mu.Unlock()
	if started {
		if err := h.launch(ctx, p); err != nil {
			h.release(p)
			return nil, err
		}
		return p, nil
	}
	select {
	case <-p.ready:
	case <-ctx.Done():
		h.release(p)
		return nil, ctx.Err()
	}
	if p.startErr != nil {
		h.release(p)
		return nil, p.startErr
	}
	return p, nil
}

// find returns key's process, or takes over the idle process unused the
// longest (the first process, which only loaded the scenario, at once).
// The caller holds h.mu.
func (h *Host) find(key string) *process {
	var idle *process
	for _, p := range h.procs {
		if p.key == key {
			return p
		}
		if p.inflight > 0 || !isClosed(p.ready) || p.startErr != nil {
			continue
		}
		if p.key != "" && time.Since(p.lastUse) < takeOverAfter {
			continue
		}
		if idle == nil || p.lastUse.Before(idle.lastUse) {
			idle = p
		}
	}
	if idle != nil {
		idle.key = key
	}
	return idle
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func (h *Host) release(p *process) {
	h.mu.Lock()
	p.inflight--
	p.lastUse = time.Now()
	h.mu.Unlock()
}

// noteSecret remembers a password so that messages from Node never show it.
func (h *Host) noteSecret(s string) {
	if len(s) < 4 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !slices.Contains(h.secrets, s) {
		h.secrets = append(h.secrets, s)
	}
}

func (h *Host) redact(s string) string {
	h.mu.Lock()
	secrets := h.secrets
	h.mu.Unlock()
	for _, p := range secrets {
		s = strings.ReplaceAll(s, p, "REDACTED")
	}
	return s
}

// scriptError is the scenario's thrown value, redacted.
func (h *Host) scriptError(op, actor string, e *jsError) *ScriptError {
	if e == nil {
		e = &jsError{Kind: "throw", Name: "Error", Message: "the Node host reported a failure without an error"}
	}
	return &ScriptError{Op: op, Actor: actor, Kind: e.Kind, Name: e.Name, Message: h.redact(e.Message), Code: e.Code}
}

func (h *Host) noteDB(db DB) {
	if pw, ok := db.Options["password"].(string); ok {
		h.noteSecret(pw)
	}
}

// Setup runs the scenario's setup in the process of database key, with a
// node-postgres client connected to db.
func (h *Host) Setup(ctx context.Context, key string, db DB) error {
	h.noteDB(db)
	p, err := h.get(ctx, key)
	if err != nil {
		return err
	}
	defer h.release(p)
	r, err := p.call(ctx, request{Op: "setup", DB: &db}, "setup", false)
	if err != nil {
		return err
	}
	if !r.OK {
		return h.scriptError("setup", "", r.Error)
	}
	return nil
}

// Actor runs one actor with its proxy's connection string and returns the
// value it resolved to, as JSON (nil for undefined). ctx ending fires the
// actor's AbortSignal.
func (h *Host) Actor(ctx context.Context, key, actor, connString string) (json.RawMessage, error) {
	if pw := passwordOf(connString); pw != "" {
		h.noteSecret(pw)
	}
	p, err := h.get(ctx, key)
	if err != nil {
		return nil, err
	}
	defer h.release(p)
	r, err := p.call(ctx, request{Op: "actor", Actor: actor, ConnectionString: connString}, "actor "+actor, true)
	if err != nil {
		return nil, err
	}
	if !r.OK {
		return nil, h.scriptError("actor", actor, r.Error)
	}
	return r.Value, nil
}

// Invariant runs the invariant on db with the actors' results. A
// *ScriptError whose Assertion is true is a violation; any other error
// means the invariant could not judge the attempt.
func (h *Host) Invariant(ctx context.Context, key string, db DB, results []Result) error {
	h.noteDB(db)
	p, err := h.get(ctx, key)
	if err != nil {
		return err
	}
	defer h.release(p)
	r, err := p.call(ctx, request{Op: "invariant", DB: &db, Results: wireResults(results)}, "the invariant", false)
	if err != nil {
		return err
	}
	if !r.OK {
		return h.scriptError("invariant", "", r.Error)
	}
	return nil
}

// Description is what the scenario module defines.
func (h *Host) Description() *Description { return h.desc }

// Close stops every Node process (their process groups included) and
// removes the host's files. It is safe to call more than once.
func (h *Host) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	procs := h.procs
	h.procs = nil
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.stop()
		}()
	}
	wg.Wait()
	return os.RemoveAll(h.files.dir)
}

// Pids are the process ids of the running Node processes (for tests and
// diagnostics).
func (h *Host) Pids() []int {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []int
	for _, p := range h.procs {
		if pid := p.pid(); pid > 0 && !p.dead() {
			out = append(out, pid)
		}
	}
	return out
}

func passwordOf(connString string) string {
	u, err := url.Parse(connString)
	if err != nil || u.User == nil {
		return ""
	}
	pw, _ := u.User.Password()
	return pw
}

// checkNodeVersion refuses a Node.js without module customization hooks
// (module.register: 20.6 and later, and 18.19 on the 18 line), whose
// failure to load the host would otherwise be obscure: a Node.js older than
// 14 cannot even parse it.
func checkNodeVersion(ctx context.Context, node string) error {
	out, err := exec.CommandContext(ctx, node, "--version").Output()
	if err != nil {
		return fmt.Errorf("run %s --version: %w; install Node.js 20.6 or newer", node, err)
	}
	v := strings.TrimSpace(string(out))
	if !hasModuleHooks(v) {
		return fmt.Errorf("Node.js %s (%s) cannot run JavaScript scenarios: Interleave needs Node.js 20.6 or newer (module.register); install a newer Node.js", v, node)
	}
	return nil
}

// hasModuleHooks reports whether Node.js version v ("v20.6.0") has
// module.register.
func hasModuleHooks(v string) bool {
	var major, minor int
	if _, err := fmt.Sscanf(v, "v%d.%d", &major, &minor); err != nil {
		return true // an unusual build: let the host check for itself
	}
	switch {
	case major >= 21:
		return true
	case major == 20:
		return minor >= 6
	case major == 18:
		return minor >= 19
	}
	return false
}

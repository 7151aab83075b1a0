//go:build !windows

package jshost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pginterleave/interleave/internal/testkit/poll"
	"github.com/pginterleave/interleave/internal/testkit/testenv"
)

// fakePG is a node-postgres stand-in: these tests never reach a server.
const fakePG = `exports.Client = class Client {
  constructor(options) { this.options = options; }
  on() { return this; }
  async connect() {}
  async query() { return { rows: [] }; }
  async end() {}
};
`

// fakeProject writes src as scenario.mjs in a new directory beside the
// fake pg and returns its path. The tests need node, nothing else.
func fakeProject(tb testing.TB, src string) string {
	tb.Helper()
	testenv.Command(tb, "node", "install Node.js (apt-get install -y nodejs; scripts/ensure-deps node)")
	dir := tb.TempDir()
	pg := filepath.Join(dir, "node_modules", "pg")
	os.MkdirAll(pg, 0o755)
	os.WriteFile(filepath.Join(pg, "package.json"), []byte(`{"name":"pg","main":"index.js"}`), 0o644)
	os.WriteFile(filepath.Join(pg, "index.js"), []byte(fakePG), 0o644)
	path := filepath.Join(dir, "scenario.mjs")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// start loads src as a scenario module beside the fake pg.
func start(tb testing.TB, src string) *Host {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h, _, err := Start(ctx, fakeProject(tb, src), Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { h.Close() })
	return h
}

func scenario(actors string) string {
	return `import { defineScenario } from '@pavangupta352/interleave';
let arrived = 0, bothHere;
const both = new Promise((resolve) => { bothHere = resolve; });
export default defineScenario({
  name: 'fake', async setup() {}, async invariant() {},
  actors: { ` + actors + ` },
});
`
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func pidOf(t *testing.T, h *Host, db string) int {
	t.Helper()
	v, err := h.Actor(ctxFor(t, 30*time.Second), db, "alice", "postgres://u@127.0.0.1:1/"+db)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(string(v))
	if err != nil {
		t.Fatalf("value %s", v)
	}
	return pid
}

// idleFor reports whether a database's process has been idle for d.
func (h *Host) idleFor(d time.Duration) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, p := range h.procs {
		if p.key != "" && p.inflight == 0 && time.Since(p.lastUse) >= d {
			return true
		}
	}
	return false
}

// Requests go to one process per database: the first database takes over
// the process that loaded the scenario, a second one gets its own, and a
// database idle for takeOverAfter gives its process to the next new one.
func TestProcessPerDatabase(t *testing.T) {
	defer func(d time.Duration) { takeOverAfter = d }(takeOverAfter)
	takeOverAfter = 300 * time.Millisecond
	h := start(t, scenario(`async alice() { return process.pid; }, async bob() {}`))
	first := h.Pids()
	p1 := pidOf(t, h, "db1")
	p2 := pidOf(t, h, "db2")
	if !slices.Equal(first, []int{p1}) || p2 == p1 || pidOf(t, h, "db1") != p1 || pidOf(t, h, "db2") != p2 {
		t.Fatalf("loader %v, db1 %d, db2 %d", first, p1, p2)
	}
	poll.Until(t, "a process idle for takeOverAfter", func() bool { return h.idleFor(takeOverAfter) })
	p3 := pidOf(t, h, "db3")
	if p3 != p1 && p3 != p2 || len(h.Pids()) != 2 {
		t.Fatalf("db3 ran in %d with processes %v; want one of %d, %d taken over", p3, h.Pids(), p1, p2)
	}
}

// The actors of an attempt run concurrently in their database's process:
// each waits until both have arrived.
func TestActorsRunConcurrently(t *testing.T) {
	h := start(t, scenario(`
    async alice() { if (++arrived === 2) bothHere(); await both; return 'alice'; },
    async bob() { if (++arrived === 2) bothHere(); await both; return 'bob'; }`))
	ctx := ctxFor(t, 20*time.Second)
	var wg sync.WaitGroup
	got := make([]string, 2)
	errs := make([]error, 2)
	for i, a := range []string{"alice", "bob"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := h.Actor(ctx, "db", a, "postgres://u@127.0.0.1:1/db")
			got[i], errs[i] = string(v), err
		}()
	}
	wg.Wait()
	if errors.Join(errs...) != nil || got[0] != `"alice"` || got[1] != `"bob"` || len(h.Pids()) != 1 {
		t.Fatalf("values %v, errors %v, processes %v", got, errs, h.Pids())
	}
}

// Passwords never reach a message: not in what the scenario threw, not in
// the output tail quoted when its process dies.
func TestMessagesHidePasswords(t *testing.T) {
	h := start(t, scenario(`
    async alice({ connectionString }) { throw new Error('cannot reach ' + connectionString); },
    async bob({ connectionString }) { console.log('connecting to', connectionString); process.exit(3); }`))
	const cs = "postgres://app:s3cret-pw@127.0.0.1:1/db"
	_, err := h.Actor(ctxFor(t, 20*time.Second), "db", "alice", cs)
	var se *ScriptError
	if !errors.As(err, &se) || se.Error() != "cannot reach postgres://app:REDACTED@127.0.0.1:1/db" {
		t.Fatalf("alice: %v", err)
	}
	_, err = h.Actor(ctxFor(t, 20*time.Second), "db", "bob", cs)
	var ee *ExitError
	if !errors.As(err, &ee) || strings.Contains(err.Error(), "s3cret") ||
		err.Error() != "the Node process running scenario.mjs exited with status 3 while it ran actor bob; its last output: connecting to postgres://app:REDACTED@127.0.0.1:1/db" {
		t.Fatalf("bob: %v", err)
	}
}

// Close ends each Node process's whole process group: a program an actor
// started is gone too.
func TestCloseEndsTheProcessGroup(t *testing.T) {
	h := start(t, `import { spawn } from 'node:child_process';
import { defineScenario } from '@pginterleave/interleave';
export default defineScenario({
  name: 'spawner', async setup() {}, async invariant() {},
  actors: { async alice() { return spawn('sleep', ['600']).pid; }, async bob() {} },
});
`)
	v, err := h.Actor(ctxFor(t, 20*time.Second), "db", "alice", "postgres://u@127.0.0.1:1/db")
	if err != nil {
		t.Fatal(err)
	}
	var child int
	if err := json.Unmarshal(v, &child); err != nil || child <= 0 {
		t.Fatalf("child pid %s", v)
	}
	node := h.Pids()
	h.Close()
	for _, pid := range append(node, child) {
		poll.Until(t, fmt.Sprintf("process %d to end after Close (Node %v, its child %d)", pid, node, child), func() bool { return !running(pid) })
	}
	if _, err := h.Actor(context.Background(), "db", "alice", "postgres://u@127.0.0.1:1/db"); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
}

// running reports whether pid runs (a zombie awaiting its parent does not).
func running(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && !strings.Contains(string(stat), ") Z ")
}

// A Node host never outlives the Go process that started it, even one
// killed without a chance to call Close: it exits when its request pipe
// closes. The Go process here is this test binary run again as a helper.
func TestHostEndsWithItsGoProcess(t *testing.T) {
	path := fakeProject(t, scenario(`async alice() {}, async bob() {}`))
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "JSHOST_HELPER="+path)
	stdout, _ := cmd.StdoutPipe()
	stdin, _ := cmd.StdinPipe() // the helper's lifeline: it ends at EOF
	defer stdin.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	var files string
	if _, err := fmt.Fscan(stdout, &pid, &files); err != nil || pid <= 0 {
		cmd.Process.Kill()
		t.Fatalf("the helper reported no Node pid: %v", err)
	}
	defer os.RemoveAll(files) // the killed helper could not remove them
	cmd.Process.Kill()        // SIGKILL: no Close, no deferred cleanup
	cmd.Wait()
	t.Cleanup(func() { syscall.Kill(-pid, syscall.SIGKILL) }) // were it to outlive it
	poll.Until(t, fmt.Sprintf("Node %d to end with the Go process that started it", pid), func() bool { return !running(pid) })
}

// TestMain runs the helper process of TestHostEndsWithItsGoProcess when
// asked to: it starts a host, prints the Node pid and waits to be killed
// (or for its stdin to close, should the test end without killing it).
func TestMain(m *testing.M) {
	path := os.Getenv("JSHOST_HELPER")
	if path == "" {
		os.Exit(m.Run())
	}
	h, _, err := Start(context.Background(), path, Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println(h.Pids()[0], h.files.dir)
	io.Copy(io.Discard, os.Stdin)
	os.Exit(2)
}

// BenchmarkActorRoundTrip is the cost of one call to a Node host and back
// (an actor that returns a value at once): the protocol's share of an
// attempt.
//
//	go test -run '^$' -bench ActorRoundTrip ./scenario/jshost
func BenchmarkActorRoundTrip(b *testing.B) {
	h := start(b, scenario(`async alice() { return { value: 1 }; }, async bob() {}`))
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := h.Actor(ctx, "db", "alice", "postgres://u@127.0.0.1:1/db"); err != nil {
			b.Fatal(err)
		}
	}
}

func TestHasModuleHooks(t *testing.T) {
	for v, want := range map[string]bool{
		"v10.19.0": false, "v12.22.9": false, "v16.20.2": false, "v18.18.2": false, "v18.19.0": true,
		"v19.9.0": false, "v20.5.1": false, "v20.6.0": true, "v20.20.2": true, "v22.1.0": true, "v24.0.0": true,
	} {
		if got := hasModuleHooks(v); got != want {
			t.Errorf("hasModuleHooks(%s) = %v, want %v", v, got, want)
		}
	}
}

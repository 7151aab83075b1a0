package jshost

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/pginterleave/interleave/supervise"
)

// abortGrace is how long an actor gets to settle after its AbortSignal
// fired before the Go side stops waiting for it.
const abortGrace = 2 * time.Second

// process is one running host.mjs. Requests are multiplexed by id; a
// reader goroutine owns the response pipe and, when it ends, waits for the
// process, kills what is left of its process group and closes done.
type process struct {
	file   string // the scenario file's base name, for messages
	output *outputTail

	writeMu  sync.Mutex
	requests *os.File // fd 3 of the process; nil once closed

	mu      sync.Mutex
	cmd     *exec.Cmd
	nextID  uint64
	pending map[uint64]chan response
	hello   chan response

	done chan struct{} // closed once the process has exited
	how  string        // how it ended; set before done closes

	// Guarded by the Host's mutex.
	key      string
	inflight int
	lastUse  time.Time
	ready    chan struct{} // closed once loaded (its hello came) or failed (startErr)
	startErr error
}

// start starts host.mjs for scenario; wait for its hello with awaitHello.
// On failure done is closed, so that the process counts as dead.
func (p *process) start(node string, f *files, scenario string) (err error) {
	defer func() {
		if err != nil {
			p.how = "did not start"
			close(p.done)
		}
	}()
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return err
	}
	respR, respW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return err
	}
	names, _ := json.Marshal(PackageNames)
	cmd := exec.Command(node, f.host, scenario, f.shimURL, f.hooksURL, string(names))
	cmd.ExtraFiles = []*os.File{reqR, respW} // fd 3, fd 4
	cmd.Stdout, cmd.Stderr = p.output, p.output
	supervise.Prepare(cmd) // own kill domain; never outlives this process
	// A grandchild holding stdout must not keep Wait from returning.
	cmd.WaitDelay = time.Second
	err = supervise.Start(cmd)
	reqR.Close()
	respW.Close()
	if err != nil {
		reqW.Close()
		respR.Close()
		return fmt.Errorf("start Node (%s): %w", node, err)
	}
	p.mu.Lock()
	p.cmd = cmd
	p.mu.Unlock()
	p.writeMu.Lock()
	p.requests = reqW
	p.writeMu.Unlock()
	go p.readResponses(respR)
	return nil
}

func (p *process) pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil || p.cmd.Process == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// readResponses dispatches answers until the process closes fd 4, then
// reaps it.
func (p *process) readResponses(pipe *os.File) {
	r := bufio.NewReaderSize(pipe, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 1 {
			p.dispatch(line)
		}
		if err != nil {
			break
		}
	}
	pipe.Close()
	// fd 4 closed: the process is exiting or was killed. Make sure of it,
	// and end whatever it started in its kill domain (after the reaping
	// too: the group may outlive its leader).
	waited := make(chan error, 1)
	go func() { waited <- supervise.Wait(p.cmd) }()
	var err error
	select {
	case err = <-waited:
	case <-time.After(2 * time.Second):
		_ = supervise.KillTree(p.cmd)
		err = <-waited
	}
	_ = supervise.KillTree(p.cmd)
	p.how = describeExit(p.cmd.ProcessState, err)
	p.closeRequests()
	close(p.done)
}

func (p *process) dispatch(line []byte) {
	var resp response
	if err := json.Unmarshal(line, &resp); err != nil {
		return // not ours: the protocol pipe carries only the host's lines
	}
	if resp.ID == 0 {
		select {
		case p.hello <- resp:
		default:
		}
		return
	}
	p.mu.Lock()
	ch := p.pending[resp.ID]
	delete(p.pending, resp.ID)
	p.mu.Unlock()
	if ch != nil {
		ch <- resp
	}
}

func describeExit(st *os.ProcessState, err error) string {
	if st != nil {
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return fmt.Sprintf("was killed by signal %d (%v)", int(ws.Signal()), ws.Signal())
		}
		return fmt.Sprintf("exited with status %d", st.ExitCode())
	}
	if err != nil {
		return fmt.Sprintf("ended: %v", err)
	}
	return "ended"
}

// awaitHello waits for the host to report the loaded scenario.
func (p *process) awaitHello(ctx context.Context) (*Description, error) {
	select {
	case r := <-p.hello:
		if !r.OK || r.Hello == nil {
			if r.Error == nil {
				return nil, &LoadError{Kind: "load", Message: "the Node host answered without describing the scenario"}
			}
			return nil, &LoadError{Kind: r.Error.Kind, Message: loadMessage(p.file, r.Error)}
		}
		return r.Hello, nil
	case <-p.done:
		select {
		case r := <-p.hello:
			if r.Error != nil {
				return nil, &LoadError{Kind: r.Error.Kind, Message: loadMessage(p.file, r.Error)}
			}
		default:
		}
		return nil, p.exitError("loading the scenario")
	case <-ctx.Done():
		return nil, fmt.Errorf("Node did not finish loading %s: %w", p.file, ctx.Err())
	}
}

func loadMessage(file string, e *jsError) string {
	if e.Kind != "load" {
		return e.Message
	}
	se := &ScriptError{Kind: "throw", Name: e.Name, Message: e.Message, Code: e.Code}
	if e.Where != "" {
		return fmt.Sprintf("%s could not be loaded: %s: %s", file, e.Where, se.Error())
	}
	return fmt.Sprintf("%s could not be loaded: %s", file, se.Error())
}

func (p *process) exitError(during string) *ExitError {
	return &ExitError{File: p.file, During: during, How: p.how, Output: p.output.String()}
}

func (p *process) dead() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *process) send(req request) error {
	line, err := json.Marshal(req)
	if err != nil {
		return err
	}
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	if p.requests == nil {
		return os.ErrClosed
	}
	_, err = p.requests.Write(append(line, '\n'))
	return err
}

// call sends req and waits for its answer, the process's end or ctx. An
// actor (abortable) has its AbortSignal fired when ctx ends and then
// abortGrace to answer; setup and the invariant are given up at once.
func (p *process) call(ctx context.Context, req request, during string, abortable bool) (response, error) {
	ch := make(chan response, 1)
	p.mu.Lock()
	p.nextID++
	req.ID = p.nextID
	p.pending[req.ID] = ch
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.pending, req.ID)
		p.mu.Unlock()
	}()
	if err := p.send(req); err != nil {
		select {
		case <-p.done:
			return response{}, p.exitError(during)
		case <-time.After(2 * time.Second):
			return response{}, fmt.Errorf("send %s to the Node process: %w", during, err)
		}
	}
	answered := func() (response, error) {
		select {
		case r := <-ch: // answered just before it ended
			return r, nil
		default:
			return response{}, p.exitError(during)
		}
	}
	select {
	case r := <-ch:
		return r, nil
	case <-p.done:
		return answered()
	case <-ctx.Done():
	}
	if !abortable {
		return response{}, ctx.Err()
	}
	_ = p.send(request{Op: "abort", Target: req.ID})
	grace := time.NewTimer(abortGrace)
	defer grace.Stop()
	select {
	case r := <-ch:
		return r, nil
	case <-p.done:
		return answered()
	case <-grace.C:
		return response{}, fmt.Errorf("%s did not settle within %v after its AbortSignal fired: %w", during, abortGrace, ctx.Err())
	}
}

func (p *process) closeRequests() {
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	if p.requests != nil {
		p.requests.Close()
		p.requests = nil
	}
}

// stop closes fd 3 (the host exits on its own), then kills the process
// group if it is still there after a grace period, and waits for the end.
func (p *process) stop() {
	if p.pid() == 0 {
		return // never started; its launcher sees the Host closed
	}
	p.closeRequests()
	select {
	case <-p.done:
		return
	case <-time.After(time.Second):
	}
	_ = supervise.KillTree(p.cmd)
	<-p.done
}

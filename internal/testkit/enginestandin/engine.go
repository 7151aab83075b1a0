// Package enginestandin is a stand-in for a Docker engine, for tests on
// machines where none runs: it answers the Docker Engine API calls
// Interleave's --docker makes over a Unix socket, and "runs" each container
// as a real throwaway PostgreSQL from local binaries, published on the
// loopback port the API reports. Only the engine is a stand-in; the
// database is real.
package enginestandin

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/pginterleave/interleave/pgserver"
)

// Call is one API request the engine received.
type Call struct {
	Method, Path string
	Query        url.Values
	Body         map[string]any // decoded JSON body, if any
}

// Engine is the stand-in. Its zero value is not usable; call Start.
type Engine struct {
	Host string // the DOCKER_HOST value that reaches it

	srv    *http.Server
	mu     sync.Mutex
	calls  []Call
	pgs    map[string]*pgserver.Local // container id -> its server
	next   int
	image  bool // the image has been "pulled"
	closed bool
}

// apiVersion is the Engine API version the stand-in reports.
const apiVersion = "1.45"

var versioned = regexp.MustCompile(`^/v[0-9.]+(/.*)$`)

// Start listens on a Unix socket in dir.
func Start(dir string) (*Engine, error) {
	sock := filepath.Join(dir, "docker.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		return nil, err
	}
	e := &Engine{Host: "unix://" + sock, pgs: map[string]*pgserver.Local{}}
	e.srv = &http.Server{Handler: http.HandlerFunc(e.serve)}
	go func() { _ = e.srv.Serve(l) }()
	return e, nil
}

// Calls returns the requests received so far.
func (e *Engine) Calls() []Call {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Call(nil), e.calls...)
}

// Running counts the containers not removed.
func (e *Engine) Running() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.pgs)
}

// Close stops the engine and every server it still runs, including one a
// request is starting right now (that request closes it).
func (e *Engine) Close() {
	_ = e.srv.Close()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	for id, pg := range e.pgs {
		_ = pg.Close()
		delete(e.pgs, id)
	}
}

func (e *Engine) serve(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if m := versioned.FindStringSubmatch(path); m != nil {
		path = m[1]
	}
	call := Call{Method: r.Method, Path: path, Query: r.URL.Query()}
	if r.Body != nil {
		var body map[string]any
		if json.NewDecoder(r.Body).Decode(&body) == nil {
			call.Body = body
		}
	}
	e.mu.Lock()
	e.calls = append(e.calls, call)
	e.mu.Unlock()
	w.Header().Set("Api-Version", apiVersion)
	w.Header().Set("Content-Type", "application/json")

	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case path == "/_ping":
		_, _ = w.Write([]byte("OK"))
	case r.Method == "GET" && len(parts) >= 3 && parts[0] == "images" && parts[len(parts)-1] == "json":
		e.mu.Lock()
		pulled := e.image
		e.mu.Unlock()
		if !pulled {
			reply(w, http.StatusNotFound, "No such image")
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"Id": "sha256:standin"})
	case r.Method == "POST" && path == "/images/create":
		e.mu.Lock()
		e.image = true
		e.mu.Unlock()
		_, _ = w.Write([]byte(`{"status":"Pulled (stand-in)"}` + "\n"))
	case r.Method == "POST" && path == "/containers/create":
		e.mu.Lock()
		e.next++
		id := fmt.Sprintf("%064d", e.next)
		e.mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(map[string]any{"Id": id, "Warnings": []string{}})
	case r.Method == "POST" && len(parts) == 3 && parts[0] == "containers" && parts[2] == "start":
		e.mu.Lock()
		running := e.pgs[parts[1]] != nil
		e.mu.Unlock()
		if running {
			w.WriteHeader(http.StatusNotModified) // already started, as Docker answers
			return
		}
		pg, err := pgserver.StartLocal(r.Context(), pgserver.LocalOptions{})
		if err != nil {
			reply(w, http.StatusInternalServerError, err.Error())
			return
		}
		e.mu.Lock()
		if e.closed {
			e.mu.Unlock()
			_ = pg.Close()
			reply(w, http.StatusServiceUnavailable, "the engine is shutting down")
			return
		}
		e.pgs[parts[1]] = pg
		e.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	case r.Method == "GET" && len(parts) == 3 && parts[0] == "containers" && parts[2] == "json":
		e.mu.Lock()
		pg := e.pgs[parts[1]]
		e.mu.Unlock()
		if pg == nil {
			reply(w, http.StatusNotFound, "No such container")
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{
			"Id":    parts[1],
			"State": map[string]any{"Running": true, "Status": "running"},
			"NetworkSettings": map[string]any{"Ports": map[string]any{
				"5432/tcp": []map[string]string{{"HostIp": "127.0.0.1", "HostPort": strconv.Itoa(pg.Port())}},
			}},
		})
	case r.Method == "DELETE" && len(parts) == 2 && parts[0] == "containers":
		e.mu.Lock()
		pg := e.pgs[parts[1]]
		delete(e.pgs, parts[1])
		e.mu.Unlock()
		if pg != nil {
			_ = pg.Close()
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		reply(w, http.StatusNotFound, "the stand-in engine does not implement "+r.Method+" "+path)
	}
}

// reply answers with an Engine API error body.
func reply(w http.ResponseWriter, status int, msg string) {
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"message": msg})
}

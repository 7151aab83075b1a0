package docker

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// No Docker engine runs where this project is built. What is checked here:
// the container specification as JSON, the error when the engine is absent,
// and the client's HTTP exchanges (version negotiation, a pull that fails
// inside its progress stream, an engine's error message) against an HTTP
// server on a Unix socket. The whole --docker path against a stand-in
// engine that runs real PostgreSQL is TestDockerOptionFindsTheRaceAndRemovesTheContainer
// in the root package.
func TestDockerContainerSpec(t *testing.T) {
	cfg := containerSpec(Options{MaxConnections: 50}, "secret")
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	labels, _ := got["Labels"].(map[string]any)
	if got["Image"] != "postgres:16" || labels["org.pginterleave.throwaway"] != "true" || !strings.Contains(string(b), `"Env":["POSTGRES_PASSWORD=secret"]`) {
		t.Fatalf("config %s", b)
	}
	cmd := strings.Join(cfg.Cmd, " ")
	for _, want := range []string{"max_connections=50", "fsync=off", "autovacuum=off", "deadlock_timeout=100ms"} {
		if !strings.Contains(cmd, want) {
			t.Errorf("command %q lacks %s", cmd, want)
		}
	}
	for _, want := range []string{`"ExposedPorts":{"5432/tcp":{}}`, `"HostConfig":{"PortBindings":{"5432/tcp":[{"HostIp":"127.0.0.1","HostPort":""}]}}`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("config %s lacks %s (5432 published on a free loopback port)", b, want)
		}
	}
}

func TestDockerEngineUnreachableIsExplained(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := Start(ctx, Options{})
	if err == nil || !strings.Contains(err.Error(), "cannot reach the Docker engine at unix:///nonexistent/docker.sock") || !strings.Contains(err.Error(), "no Options.Server.Provider") {
		t.Fatalf("error %v", err)
	}
}

func TestDockerHostSchemes(t *testing.T) {
	for host, want := range map[string]string{
		"ssh://me@box":   "unix://, tcp:// or npipe://, not ssh://",
		"tcp://[::1":     "is not a URL",
		"unix:///x.sock": "",
		"tcp://h:2375":   "",
	} {
		t.Setenv("DOCKER_HOST", host)
		_, err := newEngine()
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("DOCKER_HOST %s: error %v, want %q", host, err, want)
		}
	}
}

func TestSplitImage(t *testing.T) {
	for ref, want := range map[string][2]string{
		"postgres:16":                    {"postgres", "16"},
		"postgres":                       {"postgres", "latest"},
		"localhost:5000/pg":              {"localhost:5000/pg", "latest"},
		"localhost:5000/pg:17-alpine":    {"localhost:5000/pg", "17-alpine"},
		"postgres@sha256:0123456789abcd": {"postgres", "sha256:0123456789abcd"},
	} {
		if n, tag := splitImage(ref); n != want[0] || tag != want[1] {
			t.Errorf("splitImage(%s) = %s, %s; want %s, %s", ref, n, tag, want[0], want[1])
		}
	}
}

// fakeAPI serves handler on a Unix socket and points DOCKER_HOST at it;
// it records each request's path.
func fakeAPI(t *testing.T, handler func(w http.ResponseWriter, r *http.Request)) *[]string {
	t.Helper()
	dir, err := os.MkdirTemp("", "dk")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "d.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var paths []string
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.Method+" "+r.URL.RequestURI())
		mu.Unlock()
		handler(w, r)
	})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { srv.Close() })
	t.Setenv("DOCKER_HOST", "unix://"+sock)
	return &paths
}

func TestDockerVersionNegotiationAndPullFailure(t *testing.T) {
	paths := fakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Api-Version", "1.41")
		switch {
		case r.URL.Path == "/_ping":
			_, _ = w.Write([]byte("OK"))
		case strings.HasPrefix(r.URL.Path, "/v1.41/images/") && strings.HasSuffix(r.URL.Path, "/json"):
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"message":"No such image: postgres:99"}`))
		case r.URL.Path == "/v1.41/images/create":
			// A pull that fails answers 200 and names the failure in its stream.
			_, _ = w.Write([]byte(`{"status":"Pulling from library/postgres"}` + "\n" +
				`{"errorDetail":{"message":"manifest for postgres:99 not found"},"error":"manifest for postgres:99 not found"}` + "\n"))
		default:
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(`{"message":"unexpected ` + r.URL.Path + `"}`))
		}
	})
	_, err := Start(context.Background(), Options{Image: "postgres:99"})
	if err == nil || err.Error() != "Docker: pull postgres:99: manifest for postgres:99 not found" {
		t.Fatalf("error %v", err)
	}
	want := []string{"GET /_ping", "GET /v1.41/images/postgres:99/json", "POST /v1.41/images/create?fromImage=postgres&tag=99"}
	if strings.Join(*paths, "\n") != strings.Join(want, "\n") {
		t.Fatalf("requests:\n%s\nwant:\n%s", strings.Join(*paths, "\n"), strings.Join(want, "\n"))
	}
}

func TestDockerNewerEngineIsSpokenToInOurVersionAndItsErrorsShown(t *testing.T) {
	paths := fakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Api-Version", "1.99")
		switch {
		case r.URL.Path == "/_ping":
			_, _ = w.Write([]byte("OK"))
		case strings.HasSuffix(r.URL.Path, "/json"):
			_, _ = w.Write([]byte(`{"Id":"sha256:x"}`))
		case strings.HasSuffix(r.URL.Path, "/containers/create"):
			w.WriteHeader(http.StatusConflict)
			_, _ = w.Write([]byte(`{"message":"Conflict. The container name is already in use"}`))
		}
	})
	_, err := Start(context.Background(), Options{})
	if err == nil || err.Error() != "Docker: create a container from postgres:16: Conflict. The container name is already in use" {
		t.Fatalf("error %v", err)
	}
	if got := (*paths)[len(*paths)-1]; got != "POST /v"+maxAPIVersion+"/containers/create" {
		t.Fatalf("last request %s: want the create in API version %s", got, maxAPIVersion)
	}
}

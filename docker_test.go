package interleave_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/internal/testkit/enginestandin"
	"github.com/pginterleave/interleave/internal/testkit/fixture"
	"github.com/pginterleave/interleave/pgserver/docker"
)

// No Docker engine runs where this project is built. This test runs --docker
// end to end against a stand-in that speaks the Docker Engine API on a Unix
// socket and runs each "container" as a real local PostgreSQL: the client
// calls, the container specification, the published port, the search on
// that server, and the removal of the container on close are all real; only
// the engine is not.
func TestDockerOptionFindsTheRaceAndRemovesTheContainer(t *testing.T) {
	// A short directory: a Unix socket path is limited to about 104 bytes.
	dir, err := os.MkdirTemp("", "dk")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	engine, err := enginestandin.Start(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer engine.Close()
	t.Setenv("DOCKER_HOST", engine.Host)

	var stdout, stderr bytes.Buffer
	o := interleave.Options{Search: interleave.SearchOptions{Workers: 2}, Server: interleave.ServerOptions{Provider: docker.Provider{Image: "postgres:16"}}}
	res, err := interleave.Explore(fixture.Context(t), fixture.Counter(false), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomeViolation || res.Summary.Attempted != 1 {
		t.Fatalf("outcome %s after %d attempts: %s", res.Outcome, res.Summary.Attempted, res.Message)
	}
	if engine.Running() != 0 {
		t.Fatalf("%d containers still exist after the search", engine.Running())
	}

	var password string
	var created, started, removed, pulled bool
	for _, c := range engine.Calls() {
		switch {
		case c.Method == "POST" && c.Path == "/images/create":
			pulled = strings.HasSuffix(c.Query.Get("fromImage"), "postgres") && c.Query.Get("tag") == "16"
		case c.Method == "POST" && c.Path == "/containers/create":
			created = true
			env, _ := c.Body["Env"].([]any)
			for _, kv := range env {
				if s, _ := kv.(string); strings.HasPrefix(s, "POSTGRES_PASSWORD=") {
					password = strings.TrimPrefix(s, "POSTGRES_PASSWORD=")
				}
			}
			labels, _ := c.Body["Labels"].(map[string]any)
			if c.Body["Image"] != "postgres:16" || labels["org.pginterleave.throwaway"] != "true" {
				t.Errorf("container config: image %v, labels %v", c.Body["Image"], labels)
			}
			host, _ := c.Body["HostConfig"].(map[string]any)
			if b, _ := json.Marshal(host["PortBindings"]); !strings.Contains(string(b), `"5432/tcp":[{"HostIp":"127.0.0.1","HostPort":""}]`) {
				t.Errorf("port bindings %s: want 5432 on a free loopback port", b)
			}
		case c.Method == "POST" && strings.HasSuffix(c.Path, "/start"):
			started = true
		case c.Method == "DELETE" && strings.HasPrefix(c.Path, "/containers/"):
			removed = c.Query.Get("force") == "1" && c.Query.Get("v") == "1"
		}
	}
	if !pulled || !created || !started || !removed {
		t.Fatalf("engine calls: pulled %v, created %v, started %v, removed with force and volumes %v", pulled, created, started, removed)
	}
	if len(password) < 16 {
		t.Fatalf("the container's password %q is not a random secret", password)
	}
	art, _ := json.Marshal(res.Artifact)
	for where, text := range map[string]string{"artifact": string(art), "stdout": stdout.String(), "stderr": stderr.String()} {
		if strings.Contains(text, password) {
			t.Errorf("the container's password appears in the %s", where)
		}
	}
}

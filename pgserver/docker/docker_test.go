package docker

import (
	"context"
	"strings"
	"testing"
	"time"
)

// No Docker engine runs where this project is built; what can be checked
// is the container specification and the error when the engine is absent.
func TestDockerContainerSpec(t *testing.T) {
	cfg, host := containerSpec(Options{MaxConnections: 50}, "secret")
	if cfg.Image != "postgres:16" || cfg.Env[0] != "POSTGRES_PASSWORD=secret" || cfg.Labels["org.pginterleave.throwaway"] != "true" {
		t.Fatalf("config %+v", cfg)
	}
	cmd := strings.Join(cfg.Cmd, " ")
	for _, want := range []string{"max_connections=50", "fsync=off", "autovacuum=off", "deadlock_timeout=100ms"} {
		if !strings.Contains(cmd, want) {
			t.Errorf("command %q lacks %s", cmd, want)
		}
	}
	b := host.PortBindings["5432/tcp"]
	if len(b) != 1 || b[0].HostIP != "127.0.0.1" || b[0].HostPort != "" {
		t.Fatalf("port bindings %+v: want 5432 on a free loopback port", host.PortBindings)
	}
}

func TestDockerEngineUnreachableIsExplained(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := Start(ctx, Options{})
	if err == nil || !strings.Contains(err.Error(), "cannot reach the Docker engine") || !strings.Contains(err.Error(), "without --docker") {
		t.Fatalf("error %v", err)
	}
}

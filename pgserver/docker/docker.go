// Package docker starts a throwaway PostgreSQL as a container through the
// Docker Engine API. It is its own package so that only programs that ask
// for it (the interleave command's --docker) link the Docker client.
package docker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
	"github.com/docker/go-connections/nat"
	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave/pgserver"
)

// Options configure a throwaway PostgreSQL container.
type Options struct {
	// Image is the PostgreSQL image (default postgres:16).
	Image          string
	MaxConnections int
}

// Docker is a throwaway container started through the Docker API (the
// engine DOCKER_HOST names, or the local socket); Close removes it with its
// volumes. Databases are managed as on a dedicated server.
type Docker struct {
	*pgserver.External
	cli *client.Client
	id  string
}

// containerSpec is the container: the official image's entrypoint with a
// random superuser password, test-speed settings, port 5432 published on a
// free loopback port, and a label that names it as Interleave's.
func containerSpec(opts Options, password string) (*container.Config, *container.HostConfig) {
	img := opts.Image
	if img == "" {
		img = "postgres:16"
	}
	maxConn := opts.MaxConnections
	if maxConn <= 0 {
		maxConn = 100
	}
	cmd := []string{"postgres", "-c", "max_connections=" + strconv.Itoa(maxConn)}
	for _, kv := range pgserver.TestSpeedSettings() {
		cmd = append(cmd, "-c", kv[0]+"="+kv[1])
	}
	port := nat.Port("5432/tcp")
	return &container.Config{
			Image:        img,
			Env:          []string{"POSTGRES_PASSWORD=" + password},
			Cmd:          cmd,
			ExposedPorts: nat.PortSet{port: struct{}{}},
			Labels:       map[string]string{"org.pginterleave.throwaway": "true"},
		}, &container.HostConfig{
			PortBindings: nat.PortMap{port: []nat.PortBinding{{HostIP: "127.0.0.1", HostPort: ""}}},
		}
}

// Start starts a container and waits until PostgreSQL accepts
// connections. On error nothing is left behind.
func Start(ctx context.Context, opts Options) (_ *Docker, err error) {
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return nil, fmt.Errorf("--docker: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	_, err = cli.Ping(pctx)
	cancel()
	if err != nil {
		cli.Close()
		return nil, fmt.Errorf("--docker: cannot reach the Docker engine at %s (%v); start Docker, set DOCKER_HOST, or run without --docker to use local PostgreSQL binaries", cli.DaemonHost(), err)
	}
	password, err := newPassword()
	if err != nil {
		cli.Close()
		return nil, err
	}
	cfg, hostCfg := containerSpec(opts, password)
	if _, err := cli.ImageInspect(ctx, cfg.Image); err != nil {
		rc, perr := cli.ImagePull(ctx, cfg.Image, image.PullOptions{})
		if perr != nil {
			cli.Close()
			return nil, fmt.Errorf("--docker: pull %s: %w", cfg.Image, perr)
		}
		_, _ = io.Copy(io.Discard, rc)
		rc.Close()
	}
	created, err := cli.ContainerCreate(ctx, cfg, hostCfg, nil, nil, "")
	if err != nil {
		cli.Close()
		return nil, fmt.Errorf("--docker: create a container from %s: %w", cfg.Image, err)
	}
	d := &Docker{cli: cli, id: created.ID}
	defer func() {
		if err != nil {
			d.remove()
		}
	}()
	if err := cli.ContainerStart(ctx, created.ID, container.StartOptions{}); err != nil {
		return nil, fmt.Errorf("--docker: start the container: %w", err)
	}
	info, err := cli.ContainerInspect(ctx, created.ID)
	if err != nil {
		return nil, err
	}
	bindings := info.NetworkSettings.Ports[nat.Port("5432/tcp")]
	if len(bindings) == 0 {
		return nil, fmt.Errorf("--docker: the container published no port for 5432")
	}
	u := url.URL{Scheme: "postgres", User: url.UserPassword("postgres", password), Host: "127.0.0.1:" + bindings[0].HostPort, Path: "/postgres", RawQuery: "sslmode=disable"}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		c, cerr := pgx.Connect(ctx, u.String())
		if cerr == nil {
			c.Close(ctx)
			break
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return nil, fmt.Errorf("--docker: PostgreSQL in the container did not accept connections: %s", pgserver.RedactURLError(cerr))
		}
		time.Sleep(200 * time.Millisecond)
	}
	if d.External, err = pgserver.OpenExternal(ctx, u.String(), nil); err != nil {
		return nil, err
	}
	return d, nil
}

func (d *Docker) remove() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = d.cli.ContainerRemove(ctx, d.id, container.RemoveOptions{Force: true, RemoveVolumes: true})
	d.cli.Close()
}

// Describe names the container.
func (d *Docker) Describe() string {
	return fmt.Sprintf("PostgreSQL %s in Docker container %.12s", d.Version(), d.id)
}

// Close removes the container and its volumes.
func (d *Docker) Close() error {
	d.remove()
	return nil
}

func newPassword() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// Provider starts a container per run (pgserver.Provider).
type Provider struct {
	Image string // default postgres:16
}

// Start implements pgserver.Provider.
func (p Provider) Start(ctx context.Context, req pgserver.ProviderRequest) (pgserver.Server, error) {
	if req.TLS {
		return nil, fmt.Errorf("--docker with --upstream-tls is not supported: the container has no certificate; use --database-url with a TLS server")
	}
	return Start(ctx, Options{Image: p.Image, MaxConnections: req.MaxConnections})
}

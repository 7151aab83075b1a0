// Package docker starts a throwaway PostgreSQL as a container through the
// Docker Engine API. It is its own package so that only programs that ask
// for it (the interleave command's --docker) link the Docker client.
package docker

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

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
	eng *engine
	id  string
}

// containerConfig is the body of POST /containers/create: the fields of
// the Engine API's ContainerConfig and HostConfig that Start sets.
type containerConfig struct {
	Image        string
	Env          []string
	Cmd          []string
	ExposedPorts map[string]struct{}
	Labels       map[string]string
	HostConfig   hostConfig
}

type hostConfig struct {
	PortBindings map[string][]portBinding
}

type portBinding struct {
	HostIP   string `json:"HostIp"`
	HostPort string
}

// postgresPort is the container's PostgreSQL port, as the API names it.
const postgresPort = "5432/tcp"

// containerSpec is the container: the official image's entrypoint with a
// random superuser password, test-speed settings, port 5432 published on a
// free loopback port, and a label that names it as Interleave's.
func containerSpec(opts Options, password string) containerConfig {
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
	return containerConfig{
		Image:        img,
		Env:          []string{"POSTGRES_PASSWORD=" + password},
		Cmd:          cmd,
		ExposedPorts: map[string]struct{}{postgresPort: {}},
		Labels:       map[string]string{"org.pginterleave.throwaway": "true"},
		HostConfig: hostConfig{
			PortBindings: map[string][]portBinding{postgresPort: {{HostIP: "127.0.0.1", HostPort: ""}}},
		},
	}
}

// Start starts a container and waits until PostgreSQL accepts
// connections. On error nothing is left behind.
func Start(ctx context.Context, opts Options) (_ *Docker, err error) {
	eng, err := newEngine()
	if err != nil {
		return nil, fmt.Errorf("Docker: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	err = eng.negotiate(pctx)
	cancel()
	if err != nil {
		eng.close()
		return nil, fmt.Errorf("Docker: cannot reach the Docker engine at %s (%v); start Docker, set DOCKER_HOST, or use local PostgreSQL binaries (no Options.Server.Provider)", eng.host, err)
	}
	password, err := newPassword()
	if err != nil {
		eng.close()
		return nil, err
	}
	cfg := containerSpec(opts, password)
	if err := pullMissing(ctx, eng, cfg.Image); err != nil {
		eng.close()
		return nil, err
	}
	var created struct {
		ID string `json:"Id"`
	}
	if err := eng.call(ctx, "POST", "/containers/create", nil, cfg, &created); err != nil {
		eng.close()
		return nil, fmt.Errorf("Docker: create a container from %s: %w", cfg.Image, err)
	}
	d := &Docker{eng: eng, id: created.ID}
	defer func() {
		if err != nil {
			d.remove()
		}
	}()
	if err := eng.call(ctx, "POST", "/containers/"+url.PathEscape(d.id)+"/start", nil, nil, nil); err != nil {
		return nil, fmt.Errorf("Docker: start the container: %w", err)
	}
	var info struct {
		NetworkSettings struct {
			Ports map[string][]portBinding
		}
	}
	if err := eng.call(ctx, "GET", "/containers/"+url.PathEscape(d.id)+"/json", nil, nil, &info); err != nil {
		return nil, fmt.Errorf("Docker: inspect the container: %w", err)
	}
	bindings := info.NetworkSettings.Ports[postgresPort]
	if len(bindings) == 0 || bindings[0].HostPort == "" {
		return nil, fmt.Errorf("Docker: the container published no port for 5432")
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
			return nil, fmt.Errorf("Docker: PostgreSQL in the container did not accept connections: %s", pgserver.RedactURLError(cerr))
		}
		time.Sleep(200 * time.Millisecond)
	}
	if d.External, err = pgserver.OpenExternal(ctx, u.String(), nil); err != nil {
		return nil, err
	}
	return d, nil
}

// pullMissing pulls img unless the engine has it. A pull answers 200 at
// once and reports progress, and a failure, as a stream of JSON objects.
func pullMissing(ctx context.Context, eng *engine, img string) error {
	err := eng.call(ctx, "GET", "/images/"+img+"/json", nil, nil, nil)
	if err == nil {
		return nil
	}
	if !isNotFound(err) {
		return fmt.Errorf("Docker: look up image %s: %w", img, err)
	}
	name, tag := splitImage(img)
	resp, err := eng.send(ctx, "POST", "/images/create", url.Values{"fromImage": {name}, "tag": {tag}}, nil)
	if err != nil {
		return fmt.Errorf("Docker: pull %s: %w", img, err)
	}
	defer resp.Body.Close()
	dec := json.NewDecoder(bufio.NewReader(resp.Body))
	for {
		var msg struct {
			Error       string `json:"error"`
			ErrorDetail struct {
				Message string `json:"message"`
			} `json:"errorDetail"`
		}
		if err := dec.Decode(&msg); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("Docker: pull %s: %w", img, err)
		}
		if m := msg.ErrorDetail.Message; m != "" || msg.Error != "" {
			if m == "" {
				m = msg.Error
			}
			return fmt.Errorf("Docker: pull %s: %s", img, m)
		}
	}
}

// splitImage splits an image reference into the name and the tag (or
// digest) of an image pull: postgres:16 is postgres and 16, a reference
// without either is the tag latest.
func splitImage(ref string) (name, tag string) {
	if i := strings.Index(ref, "@"); i >= 0 {
		return ref[:i], ref[i+1:]
	}
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		return ref[:i], ref[i+1:]
	}
	return ref, "latest"
}

func (d *Docker) remove() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = d.eng.call(ctx, "DELETE", "/containers/"+url.PathEscape(d.id), url.Values{"force": {"1"}, "v": {"1"}}, nil, nil)
	d.eng.close()
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
		return nil, fmt.Errorf("a Docker server (Options.Server.Provider) with TLS (Options.Server.TLS) is not supported: the container has no certificate; use a dedicated TLS server (Options.Server.DatabaseURL)")
	}
	return Start(ctx, Options{Image: p.Image, MaxConnections: req.MaxConnections})
}

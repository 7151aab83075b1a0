package docker

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// engine is a client of the Docker Engine HTTP API
// (https://docs.docker.com/reference/api/engine/), written against the few
// endpoints Start needs with net/http, so that linking --docker costs no
// third-party module (the Docker SDK brings some 25, OpenTelemetry among
// them, into the module graph of every program that requires Interleave).
type engine struct {
	host    string // as DOCKER_HOST names it, for messages
	http    *http.Client
	base    string // scheme://authority the requests go to
	version string // API version prefix, "v1.45"; set by negotiate
	osType  string // the engine's OS, from the ping
}

// ErrEnvironment is returned, wrapped, when DOCKER_HOST, DOCKER_CERT_PATH
// or their files do not describe an engine Interleave can reach.
var ErrEnvironment = errors.New("the Docker environment variables do not name a usable engine")

// EngineInfo is what an engine says of itself when pinged.
type EngineInfo struct {
	Host       string // DOCKER_HOST, or the default socket
	APIVersion string // the API version Interleave speaks to it
	OSType     string // linux or windows
}

// Ping asks the engine DOCKER_HOST names (or the local default) whether it
// answers, as Start does first. A connection that nobody accepts is a
// *net.OpError in the chain; a bad environment is ErrEnvironment.
func Ping(ctx context.Context) (EngineInfo, error) {
	e, err := newEngine()
	if err != nil {
		return EngineInfo{}, err
	}
	defer e.close()
	info := EngineInfo{Host: e.host}
	if err := e.negotiate(ctx); err != nil {
		return info, err
	}
	info.APIVersion, info.OSType = strings.TrimPrefix(e.version, "v"), e.osType
	return info, nil
}

// maxAPIVersion is the newest Engine API version this client knows to
// speak; negotiate uses the engine's own when that is older. Every field it
// sends and reads exists since API 1.24.
const maxAPIVersion = "1.47"

// defaultHost is where the engine listens when DOCKER_HOST is unset.
func defaultHost() string {
	if runtime.GOOS == "windows" {
		return "npipe:////./pipe/docker_engine"
	}
	return "unix:///var/run/docker.sock"
}

// newEngine reads the environment as the docker command does: DOCKER_HOST
// (unix://, tcp:// or, on Windows, npipe://), DOCKER_CERT_PATH and
// DOCKER_TLS_VERIFY for TLS over tcp://, DOCKER_API_VERSION to pin the API
// version.
func newEngine() (*engine, error) {
	host := os.Getenv("DOCKER_HOST")
	if host == "" {
		host = defaultHost()
	}
	u, err := url.Parse(host)
	if err != nil {
		return nil, fmt.Errorf("%w: DOCKER_HOST %q is not a URL: %w", ErrEnvironment, host, err)
	}
	tr := &http.Transport{DisableCompression: true}
	e := &engine{host: host, base: "http://docker", version: os.Getenv("DOCKER_API_VERSION")}
	switch u.Scheme {
	case "unix":
		sock := u.Path
		tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		}
	case "npipe":
		pipe := strings.ReplaceAll(u.Path, "/", `\`)
		tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) { return dialPipe(ctx, pipe) }
	case "tcp", "http", "https":
		e.base = "http://" + u.Host
		tls, err := tlsFromEnv()
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrEnvironment, err)
		}
		if tls != nil || u.Scheme == "https" {
			tr.TLSClientConfig = tls
			e.base = "https://" + u.Host
		}
	default:
		return nil, fmt.Errorf("%w: DOCKER_HOST %q: Interleave reaches the Docker engine over unix://, tcp:// or npipe://, not %s://", ErrEnvironment, host, u.Scheme)
	}
	e.http = &http.Client{Transport: tr}
	return e, nil
}

// tlsFromEnv is the TLS configuration DOCKER_CERT_PATH names (ca.pem,
// cert.pem, key.pem), verified unless DOCKER_TLS_VERIFY is empty; nil when
// DOCKER_CERT_PATH is unset.
func tlsFromEnv() (*tls.Config, error) {
	dir := os.Getenv("DOCKER_CERT_PATH")
	if dir == "" {
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem"))
	if err != nil {
		return nil, fmt.Errorf("DOCKER_CERT_PATH %s: %w", dir, err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if ca, err := os.ReadFile(filepath.Join(dir, "ca.pem")); err == nil {
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(ca) {
			return nil, fmt.Errorf("DOCKER_CERT_PATH %s: ca.pem holds no certificate", dir)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	cfg.InsecureSkipVerify = os.Getenv("DOCKER_TLS_VERIFY") == ""
	return cfg, nil
}

// negotiate pings the engine and settles the API version: the engine's,
// when it is older than maxAPIVersion, as the Docker SDK's negotiation
// does (an engine refuses versions newer than its own, and Docker 29
// refuses those older than 1.44).
func (e *engine) negotiate(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.base+"/_ping", nil)
	if err != nil {
		return err
	}
	resp, err := e.http.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the engine answered %s to /_ping", resp.Status)
	}
	e.osType = resp.Header.Get("Ostype")
	if e.version != "" {
		e.version = "v" + strings.TrimPrefix(e.version, "v")
		return nil
	}
	v := resp.Header.Get("Api-Version")
	if v == "" || versionLess(maxAPIVersion, v) {
		v = maxAPIVersion
	}
	e.version = "v" + v
	return nil
}

// versionLess compares API versions such as 1.9 and 1.45 numerically.
func versionLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, _ := strconv.Atoi(as[i])
		y, _ := strconv.Atoi(bs[i])
		if x != y {
			return x < y
		}
	}
	return len(as) < len(bs)
}

// apiError is an error status from the engine, with its message.
type apiError struct {
	Status  int
	Message string
}

func (e *apiError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("the Docker engine answered %d %s", e.Status, http.StatusText(e.Status))
	}
	return e.Message
}

func isNotFound(err error) bool {
	var ae *apiError
	return errors.As(err, &ae) && ae.Status == http.StatusNotFound
}

// call sends one request to the versioned API and decodes a JSON answer
// into out (when out is not nil). A body of in is sent as JSON.
func (e *engine) call(ctx context.Context, method, path string, query url.Values, in, out any) error {
	resp, err := e.send(ctx, method, path, query, in)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("%s %s: the Docker engine's answer is not the JSON expected: %w", method, path, err)
	}
	return nil
}

// send sends one request and returns the response of a success status
// (2xx or 304); the caller closes its body. Other statuses become an
// *apiError with the engine's message.
func (e *engine) send(ctx context.Context, method, path string, query url.Values, in any) (*http.Response, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(b)
	}
	target := e.base + "/" + e.version + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return nil, err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := e.http.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 == 2 || resp.StatusCode == http.StatusNotModified {
		return resp, nil
	}
	defer resp.Body.Close()
	var msg struct {
		Message string `json:"message"`
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if json.Unmarshal(b, &msg) != nil {
		msg.Message = strings.TrimSpace(string(b))
	}
	return nil, &apiError{Status: resp.StatusCode, Message: msg.Message}
}

func (e *engine) close() { e.http.CloseIdleConnections() }

//go:build linux

package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/pginterleave/interleave/pgserver"
)

// path is one way from pgbench to the server: a port on 127.0.0.1 and,
// for a proxy, its process.
type path struct {
	name  string
	port  int
	cmd   *exec.Cmd
	gated bool
	// restart, when set, starts a fresh process before each measurement
	// (the gated proxy: one scheduled attempt per run, as a search does).
	restart func() error
}

func (p *path) pid() int {
	if p.cmd == nil || p.cmd.Process == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

func (p *path) stop() {
	if p.cmd != nil && p.cmd.Process != nil {
		p.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { p.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			p.cmd.Process.Kill()
			<-done
		}
		p.cmd = nil
	}
}

// startPaths starts every proxy. On error the paths started so far are
// returned for the caller to stop.
func startPaths(ctx context.Context, o options, tmp string, srv *pgserver.Local) ([]*path, error) {
	upstream := fmt.Sprintf("127.0.0.1:%d", srv.Port())
	paths := []*path{{name: "direct", port: srv.Port()}}
	if o.want("pgbouncer") {
		p, err := startPgBouncer(tmp, srv.Port(), o.idle)
		if err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	if o.want("toxiproxy") {
		p, err := startToxiproxy(ctx, tmp, upstream, o.toxiproxy)
		if err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	if o.want("passthrough") || o.want("capture") || o.explicit("passthrough-1p") {
		bin, err := buildInterleave(tmp)
		if err != nil {
			return paths, err
		}
		url := fmt.Sprintf("postgres://postgres@%s/postgres", upstream)
		if o.want("passthrough") {
			p, err := startCommand("interleave passthrough", exec.Command(bin, "proxy", "--listen", "127.0.0.1:0", "--upstream", url))
			if err != nil {
				return paths, err
			}
			paths = append(paths, p)
		}
		if o.explicit("passthrough-1p") {
			// An experiment: the same proxy on one processor, as PgBouncer
			// runs on one thread.
			cmd := exec.Command(bin, "proxy", "--listen", "127.0.0.1:0", "--upstream", url)
			cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
			p, err := startCommand("interleave passthrough GOMAXPROCS=1", cmd)
			if err != nil {
				return paths, err
			}
			paths = append(paths, p)
		}
		if o.want("capture") {
			p, err := startCommand("interleave passthrough+capture", exec.Command(bin, "proxy", "--listen", "127.0.0.1:0", "--upstream", url,
				"--capture", filepath.Join(tmp, "bench.capture"), "--capture-budget", "1GiB"))
			if err != nil {
				return paths, err
			}
			paths = append(paths, p)
		}
	}
	for _, g := range []struct {
		name, option string
		procs1       bool
	}{{"interleave gated (sched)", "gated", false}, {"interleave gated GOMAXPROCS=1", "gated-1p", true}} {
		if (g.procs1 && !o.explicit(g.option)) || (!g.procs1 && !o.want(g.option)) {
			continue
		}
		self, err := os.Executable()
		if err != nil {
			return paths, err
		}
		p := &path{name: g.name, gated: true}
		procs1 := g.procs1
		p.restart = func() error {
			p.stop()
			cmd := exec.Command(self, "serve-gated", upstream, srv.ConnString("postgres"))
			if procs1 {
				cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
			}
			np, err := startCommand(p.name, cmd)
			if err != nil {
				return err
			}
			p.cmd, p.port = np.cmd, np.port
			return nil
		}
		if err := p.restart(); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// startCommand starts a proxy that prints "listening on HOST:PORT" on
// stderr and waits for that line.
func startCommand(name string, cmd *exec.Cmd) (*path, error) {
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &path{name: name, cmd: cmd}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
		close(lines)
	}()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				return p, fmt.Errorf("%s ended before listening", name)
			}
			if _, rest, found := strings.Cut(l, "listening on "); found {
				addr, _, _ := strings.Cut(rest, ",")
				_, port, _ := net.SplitHostPort(strings.TrimSpace(addr))
				p.port, _ = strconv.Atoi(port)
				go func() {
					for range lines {
					}
				}()
				return p, nil
			}
		case <-deadline:
			return p, fmt.Errorf("%s did not listen within 30 s", name)
		}
	}
}

func buildInterleave(tmp string) (string, error) {
	bin := filepath.Join(tmp, "interleave")
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil || strings.TrimSpace(string(out)) == "" {
		return "", fmt.Errorf("run proxyhop from the Interleave module (go run ./bench/proxyhop)")
	}
	root := filepath.Dir(strings.TrimSpace(string(out)))
	logf("building interleave")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/interleave")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build interleave: %v\n%s", err, out)
	}
	return bin, nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// waitPort waits until something accepts connections on port.
func waitPort(port int, cmd *exec.Cmd, name string) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if cmd.ProcessState != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("%s did not accept connections on port %d", name, port)
}

// startPgBouncer runs PgBouncer in session mode as an unprivileged user
// (it refuses root), installing it with apt-get when missing.
func startPgBouncer(tmp string, pgPort, idle int) (*path, error) {
	bin, err := exec.LookPath("pgbouncer")
	if err != nil {
		logf("installing pgbouncer with apt-get")
		cmd := exec.Command("apt-get", "install", "-y", "-q", "pgbouncer")
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("install pgbouncer (apt-get install pgbouncer): %v\n%s", err, out)
		}
		if bin, err = exec.LookPath("pgbouncer"); err != nil {
			return nil, err
		}
	}
	dir := filepath.Join(tmp, "pgbouncer")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	ini := fmt.Sprintf(`[databases]
postgres = host=127.0.0.1 port=%d dbname=postgres
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = trust
auth_file = %s
pool_mode = session
max_client_conn = %d
default_pool_size = %d
log_connections = 0
log_disconnections = 0
logfile = %s
`, pgPort, port, filepath.Join(dir, "users.txt"), 2*idle+100, idle+50, filepath.Join(dir, "pgbouncer.log"))
	if err := os.WriteFile(filepath.Join(dir, "pgbouncer.ini"), []byte(ini), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "users.txt"), []byte(`"postgres" ""`+"\n"), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, filepath.Join(dir, "pgbouncer.ini"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root: PgBouncer needs an unprivileged account (postgres): %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		for _, f := range []string{tmp, dir} {
			os.Chmod(f, 0o755)
		}
		os.Chown(dir, uid, gid)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start pgbouncer: %w", err)
	}
	p := &path{name: "pgbouncer (session)", port: port, cmd: cmd}
	return p, waitPort(port, cmd, "pgbouncer")
}

// startToxiproxy builds Toxiproxy's server at version into tmp and runs it
// with one proxy and no toxics.
func startToxiproxy(ctx context.Context, tmp, upstream, version string) (*path, error) {
	gobin := filepath.Join(tmp, "toxiproxy-bin")
	logf("building Toxiproxy %s from the Go module proxy", version)
	cmd := exec.CommandContext(ctx, "go", "install", "github.com/Shopify/toxiproxy/v2/cmd/server@"+version)
	cmd.Dir = tmp // outside any module
	cmd.Env = append(os.Environ(), "GOBIN="+gobin, "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build Toxiproxy: %v\n%s", err, out)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	api, err := freePort()
	if err != nil {
		return nil, err
	}
	cfg := filepath.Join(tmp, "toxiproxy.json")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`[{"name":"pg","listen":"127.0.0.1:%d","upstream":%q,"enabled":true}]`, port, upstream)), 0o644); err != nil {
		return nil, err
	}
	tc := exec.Command(filepath.Join(gobin, "server"), "-host", "127.0.0.1", "-port", strconv.Itoa(api), "-config", cfg)
	tc.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := tc.Start(); err != nil {
		return nil, err
	}
	p := &path{name: "toxiproxy", port: port, cmd: tc}
	return p, waitPort(port, tc, "toxiproxy")
}

//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pginterleave/interleave/pgserver"
)

// measurement is one pgbench run through one path.
type measurement struct {
	latencyUS float64 // the median of the transactions' latencies (pgbench's log)
	averageUS float64 // pgbench's latency average
	tps       float64
	txns      int
	cpuUS     float64 // the proxy process's CPU time per transaction
}

type bencher struct {
	pgbench, script string
	seconds         int
	logDir          string // pgbench's per-transaction logs, removed after reading
}

var (
	latencyRe = regexp.MustCompile(`latency average = ([0-9.]+) ms`)
	tpsRe     = regexp.MustCompile(`tps = ([0-9.]+)`)
	txnsRe    = regexp.MustCompile(`number of transactions actually processed: (\d+)`)
)

func (b *bencher) latency(ctx context.Context, p *path, mode string) (measurement, error) {
	return b.run(ctx, p, mode, 1)
}

func (b *bencher) throughput(ctx context.Context, p *path, clients int) (measurement, error) {
	return b.run(ctx, p, "simple", clients)
}

func (b *bencher) run(ctx context.Context, p *path, mode string, clients int) (measurement, error) {
	if p.restart != nil {
		if err := p.restart(); err != nil {
			return measurement{}, err
		}
	}
	threads := 1
	if clients > 1 {
		threads = 2
	}
	args := []string{"-n", "-h", "127.0.0.1", "-p", strconv.Itoa(p.port), "-U", "postgres",
		"-c", strconv.Itoa(clients), "-j", strconv.Itoa(threads), "-T", strconv.Itoa(b.seconds), "-M", mode, "-f", b.script}
	logPrefix := ""
	if clients == 1 {
		// Every transaction's latency: its median resists the machine's
		// noise better than the average does.
		logPrefix = filepath.Join(b.logDir, "txn")
		args = append(args, "-l", "--log-prefix", logPrefix)
	}
	cmd := exec.CommandContext(ctx, b.pgbench, append(args, "postgres")...)
	cmd.Env = append(os.Environ(), "PGSSLMODE=disable")
	cpu0 := cpuTime(p.pid())
	out, err := cmd.CombinedOutput()
	cpu1 := cpuTime(p.pid())
	if err != nil {
		return measurement{}, fmt.Errorf("pgbench: %v\n%s", err, out)
	}
	var m measurement
	l, t, n := latencyRe.FindSubmatch(out), tpsRe.FindSubmatch(out), txnsRe.FindSubmatch(out)
	if l == nil || t == nil || n == nil {
		return m, fmt.Errorf("pgbench's output has no latency, tps or count:\n%s", out)
	}
	ms, _ := strconv.ParseFloat(string(l[1]), 64)
	m.averageUS, m.latencyUS = ms*1000, ms*1000
	if logPrefix != "" {
		med, err := logMedian(logPrefix)
		if err != nil {
			return m, err
		}
		m.latencyUS = med
	}
	m.tps, _ = strconv.ParseFloat(string(t[1]), 64)
	m.txns, _ = strconv.Atoi(string(n[1]))
	if p.pid() != 0 && m.txns > 0 {
		m.cpuUS = float64((cpu1 - cpu0).Microseconds()) / float64(m.txns)
	}
	return m, nil
}

// cpuTime is a process's user and system CPU time so far (0 for none).
func cpuTime(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the command name, which is in parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	const ticks = 100 // USER_HZ on Linux
	return time.Duration(utime+stime) * time.Second / ticks
}

// rssKiB is a process's resident set.
func rssKiB(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no VmRSS for pid %d", pid)
}

// idleMemory opens n connections through p, each past start-up and one
// SELECT 1, and returns the growth of the proxy's resident set per
// connection.
func idleMemory(ctx context.Context, p *path, n int) (float64, error) {
	before, err := rssKiB(p.pid())
	if err != nil {
		return 0, err
	}
	conns := make([]*pgconn.PgConn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close(ctx)
		}
	}()
	url := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", p.port)
	for i := 0; i < n; i++ {
		c, err := pgconn.Connect(ctx, url)
		if err != nil {
			return 0, err
		}
		conns = append(conns, c)
		if _, err := c.Exec(ctx, "SELECT 1").ReadAll(); err != nil {
			return 0, err
		}
	}
	time.Sleep(time.Second)
	after, err := rssKiB(p.pid())
	if err != nil {
		return 0, err
	}
	return float64(after-before) / float64(n), nil
}

func findPgbench() (string, error) {
	if p, err := exec.LookPath("pgbench"); err == nil {
		return p, nil
	}
	if dir, err := pgserver.FindBinDir(""); err == nil {
		if p := filepath.Join(dir, "pgbench"); fileExists(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("pgbench was not found; install postgresql-client (or postgresql-contrib)")
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// logMedian reads pgbench's per-transaction logs (prefix.PID[.thread]),
// removes them and returns the median latency in µs (the third field).
func logMedian(prefix string) (float64, error) {
	files, err := filepath.Glob(prefix + ".*")
	if err != nil || len(files) == 0 {
		return 0, fmt.Errorf("pgbench wrote no transaction log at %s.*", prefix)
	}
	var lat []float64
	for _, f := range files {
		b, err := os.ReadFile(f)
		os.Remove(f)
		if err != nil {
			return 0, err
		}
		for _, l := range strings.Split(string(b), "\n") {
			fs := strings.Fields(l)
			if len(fs) < 3 {
				continue
			}
			if v, err := strconv.ParseFloat(fs[2], 64); err == nil {
				lat = append(lat, v)
			}
		}
	}
	if len(lat) == 0 {
		return 0, fmt.Errorf("pgbench's transaction log at %s.* is empty", prefix)
	}
	return median(lat), nil
}

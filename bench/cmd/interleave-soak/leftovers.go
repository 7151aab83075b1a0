//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// leftovers is what one run left: processes, directories, listening ports
// and databases on a dedicated server.
type leftovers struct {
	Procs  []string      `json:"procs,omitempty"`
	Dirs   []string      `json:"dirs,omitempty"`
	Ports  []int         `json:"ports,omitempty"`
	DBs    []string      `json:"dbs,omitempty"`
	Waited time.Duration `json:"waited"` // until nothing was left, or the bound
}

func (l leftovers) none() bool {
	return len(l.Procs) == 0 && len(l.Dirs) == 0 && len(l.Ports) == 0 && len(l.DBs) == 0
}

func (l leftovers) String() string {
	if l.none() {
		return "nothing left"
	}
	return fmt.Sprintf("processes %v; directories %v; ports %v; databases %v", l.Procs, l.Dirs, l.Ports, l.DBs)
}

// checkLeftovers polls, up to bound, until the run whose processes t saw
// has left nothing behind, and returns what is still there at the end. A
// watchdog needs a moment after a kill -9, so nothing is judged at once.
// dedicated, when set, is a dedicated server's URL whose interleave_
// databases must all be gone.
func checkLeftovers(t *tracker, tmpdir string, dedicated string, bound time.Duration) leftovers {
	start := time.Now()
	for {
		l := leftoversNow(t, tmpdir, dedicated)
		l.Waited = time.Since(start)
		if l.none() || time.Since(start) > bound {
			return l
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func leftoversNow(t *tracker, tmpdir, dedicated string) leftovers {
	var l leftovers
	seen := map[int]bool{}
	live := map[int]bool{}
	for _, p := range t.Seen() {
		seen[p.pid] = true
		if alive(p.key()) {
			live[p.pid] = true
			l.Procs = append(l.Procs, fmt.Sprintf("%d %s", p.pid, short(p.cmdline)))
		}
	}
	// Anything started with the run's TMPDIR or working in it that the
	// samples missed.
	for _, p := range allProcs() {
		if !live[p.pid] && (p.tmpdir == tmpdir || strings.Contains(p.cmdline, tmpdir+"/")) {
			l.Procs = append(l.Procs, fmt.Sprintf("%d %s (unseen)", p.pid, short(p.cmdline)))
		}
	}
	entries, _ := os.ReadDir(tmpdir)
	for _, e := range entries {
		l.Dirs = append(l.Dirs, filepath.Join(tmpdir, e.Name()))
	}
	// A managed server's directory goes to /tmp when TMPDIR does not suit
	// it: look there for directories an owner record says are the run's.
	others, _ := filepath.Glob("/tmp/interleave-*")
	for _, d := range others {
		if owner := recordOwner(d); owner > 0 && seen[owner] {
			l.Dirs = append(l.Dirs, d)
		}
	}
	if ports, err := ssListening(); err == nil {
		for port, holder := range t.Ports() {
			for _, pid := range ports[port] {
				if pid == holder.pid && alive(holder) {
					l.Ports = append(l.Ports, port)
				}
			}
		}
	}
	sort.Ints(l.Ports)
	if dedicated != "" {
		dbs, err := interleaveDatabases(dedicated)
		if err != nil {
			l.DBs = append(l.DBs, "(could not list: "+err.Error()+")")
		}
		l.DBs = append(l.DBs, dbs...)
	}
	return l
}

// recordOwner is the owner pid in a work directory's owner record, or 0.
func recordOwner(dir string) int {
	b, err := os.ReadFile(filepath.Join(dir, ".interleave-owner.json"))
	if err != nil {
		return 0
	}
	var rec struct {
		Owner struct {
			PID int `json:"pid"`
		} `json:"owner"`
	}
	if json.Unmarshal(b, &rec) != nil {
		return 0
	}
	return rec.Owner.PID
}

// interleaveDatabases lists the interleave_ databases of a server.
func interleaveDatabases(url string) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, err
	}
	defer c.Close(ctx)
	rows, err := c.Query(ctx, `SELECT datname FROM pg_database WHERE datname LIKE 'interleave\_%' ORDER BY 1`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

func short(s string) string {
	if len(s) > 100 {
		return s[:100] + "..."
	}
	return s
}

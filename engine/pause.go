package engine

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/pginterleave/interleave/artifact"
	"github.com/pginterleave/interleave/netproxy"
	"github.com/pginterleave/interleave/sched"
)

// Pause is what a replay paused after a step shows: where to look and the
// state of every actor's session, all of them still open.
type Pause struct {
	// Step is the last step released; Actor and SQL its command.
	Step       int
	Actor, SQL string
	// Database is the attempt's database; PSQL a psql command line that
	// opens it (never with a password: Password says whether one is needed).
	Database string
	PSQL     string
	Password bool
	Sessions []PausedSession
}

// PausedSession is one actor connection at the pause.
type PausedSession struct {
	Actor string
	Conn  int
	PID   uint32
	// State is pg_stat_activity's: idle, idle in transaction, active (a
	// command waiting on a lock), idle in transaction (aborted).
	State string
	// XID is the transaction id PostgreSQL assigned ("" before a write).
	XID       string
	WaitEvent string
	Query     string
}

// pauseTimeout is the attempt deadline of a paused replay: a person reads
// the database for as long as they like.
const pauseTimeout = 24 * time.Hour

// pausingPolicy calls the hook once, at the decision after step at, while
// every session is open and quiescent (each actor holding a command at
// its gate, waiting on a lock, or done).
type pausingPolicy struct {
	sched.Policy
	ctx    context.Context
	w      *worker
	rec    *artifact.Artifact
	at     int
	hook   func(context.Context, Pause)
	paused bool
}

// Choose implements sched.Policy.
func (p *pausingPolicy) Choose(step int, cands []sched.Candidate) ([]int, error) {
	if !p.paused && step == p.at+1 {
		p.paused = true
		p.hook(p.ctx, p.w.pauseInfo(p.ctx, p.rec, p.at))
		if err := p.ctx.Err(); err != nil {
			return nil, err
		}
	}
	return p.Policy.Choose(step, cands)
}

// pausing wraps policy to pause after step opts.PauseAt when opts.OnPause
// is set.
func (w *worker) pausing(ctx context.Context, policy sched.Policy, rec *artifact.Artifact, opts ReplayOptions) sched.Policy {
	if opts.OnPause == nil {
		return policy
	}
	w.pids = &pidBook{names: rec.Scenario.Actors}
	return &pausingPolicy{Policy: policy, ctx: ctx, w: w, rec: rec, at: opts.PauseAt, hook: opts.OnPause}
}

// checkPause refuses a pause after a step the recording does not have
// sessions open after.
func checkPause(rec *artifact.Artifact, opts ReplayOptions) error {
	if opts.OnPause == nil {
		return nil
	}
	n := len(rec.Schedule.Decisions)
	if opts.PauseAt < 0 || opts.PauseAt >= n-1 {
		return &OptionError{Field: "ReplayOptions.PauseAt", Msg: fmt.Sprintf("is %d; the recording has steps 0 to %d, and sessions are open after steps 0 to %d only", opts.PauseAt, n-1, n-2)}
	}
	return nil
}

// pidBook notes the backend pid of each actor connection as its proxy
// attaches it.
type pidBook struct {
	mu    sync.Mutex
	names []string
	conns []PausedSession
}

type pidGate struct {
	netproxy.Gate
	book  *pidBook
	actor int
}

func (g pidGate) Attach(info netproxy.ConnInfo) (netproxy.ConnGate, error) {
	g.book.mu.Lock()
	name := fmt.Sprint(g.actor)
	if g.actor < len(g.book.names) {
		name = g.book.names[g.actor]
	}
	g.book.conns = append(g.book.conns, PausedSession{Actor: name, Conn: info.Ordinal, PID: info.BackendPID})
	g.book.mu.Unlock()
	return g.Gate.Attach(info)
}

// gateFor is actor i's gate, noting pids when a pause will ask for them.
func (w *worker) gateFor(g netproxy.Gate, i int) netproxy.Gate {
	if w.pids == nil {
		return g
	}
	return pidGate{Gate: g, book: w.pids, actor: i}
}

// pauseInfo reads each actor session's state on the control connection.
func (w *worker) pauseInfo(ctx context.Context, rec *artifact.Artifact, step int) Pause {
	p := Pause{Step: step, Database: w.db}
	for _, u := range rec.Units {
		if u.ReleaseStep == step {
			p.Actor, p.SQL = u.Actor, strings.Join(u.SQL, "; ")
		}
	}
	p.PSQL, p.Password = psqlCommand(w.env.server.Endpoint().Network, w.env.server.Endpoint().Address, w.env.server.User(), w.db), w.env.server.Password() != ""
	w.pids.mu.Lock()
	sessions := append([]PausedSession(nil), w.pids.conns...)
	w.pids.mu.Unlock()
	var pids []uint32
	for _, s := range sessions {
		pids = append(pids, s.PID)
	}
	byPID := map[uint32]PausedSession{}
	rows, err := w.control.Query(ctx, `SELECT pid, coalesce(state, ''), coalesce(backend_xid::text, ''), coalesce(wait_event_type || ':' || wait_event, ''), coalesce(query, '') FROM pg_stat_activity WHERE pid = ANY($1)`, pids)
	if err == nil {
		for rows.Next() {
			var s PausedSession
			if rows.Scan(&s.PID, &s.State, &s.XID, &s.WaitEvent, &s.Query) == nil {
				byPID[s.PID] = s
			}
		}
		rows.Close()
	}
	for i, s := range sessions {
		got, ok := byPID[s.PID]
		if !ok {
			sessions[i].State = "closed"
			continue
		}
		got.Actor, got.Conn = s.Actor, s.Conn
		sessions[i] = got
	}
	sort.SliceStable(sessions, func(i, j int) bool { return sessions[i].Actor < sessions[j].Actor })
	p.Sessions = sessions
	return p
}

// psqlCommand opens database on the server at the endpoint.
func psqlCommand(network, address, user, database string) string {
	host, port := address, "5432"
	if network == "unix" {
		host = filepath.Dir(address)
		if i := strings.LastIndex(address, ".s.PGSQL."); i >= 0 {
			port = address[i+len(".s.PGSQL."):]
		}
	} else if h, p, err := net.SplitHostPort(address); err == nil {
		host, port = h, p
	}
	return fmt.Sprintf("psql -h %s -p %s -U %s %s", shellWord(host), port, shellWord(user), database)
}

func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

package sched

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Wait is one backend PostgreSQL reports as waiting on a lock.
type Wait struct {
	PID      uint32
	ByActors bool     // pg_isolation_test_session_is_blocked against the actors' pids
	Blockers []uint32 // pg_blocking_pids
	// SnapshotBlockers are the sessions whose serializable read-write
	// transactions a SERIALIZABLE READ ONLY DEFERRABLE transaction waits
	// for (pg_safe_snapshot_blocking_pids). PostgreSQL tracks them across
	// the whole cluster, not per database: another attempt's transactions
	// count, so a safe-snapshot wait can depend on another worker.
	SnapshotBlockers []uint32
}

// LockMonitor asks PostgreSQL which of pids wait on a lock.
type LockMonitor interface {
	Waits(ctx context.Context, pids, actorPIDs []uint32) ([]Wait, error)
}

// waitsSQL filters on the wait event first (cheap, lock-free) and only then
// asks the lock manager, the same signal PostgreSQL's isolation tester uses.
const waitsSQL = `SELECT a.pid, pg_isolation_test_session_is_blocked(a.pid, $2::int4[]), pg_blocking_pids(a.pid),
  CASE WHEN a.wait_event = 'SafeSnapshot' THEN pg_safe_snapshot_blocking_pids(a.pid) ELSE '{}' END
FROM pg_stat_activity a
WHERE a.pid = ANY($1::int4[]) AND (a.wait_event_type = 'Lock' OR a.wait_event = 'SafeSnapshot')`

// LockReader is a LockMonitor that can also list the relation locks
// backends hold (pg_locks), for the reduction's cross-check.
type LockReader interface {
	HeldLocks(ctx context.Context, pids []uint32) (map[uint32][]RelLock, error)
}

const heldSQL = `SELECT pid, database, relation FROM pg_locks
WHERE pid = ANY($1::int4[]) AND locktype = 'relation' AND granted AND mode <> 'SIReadLock'`

// HeldLocks implements LockReader.
func (m *PGMonitor) HeldLocks(ctx context.Context, pids []uint32) (map[uint32][]RelLock, error) {
	ps := make([]int32, len(pids))
	for i, p := range pids {
		ps[i] = int32(p)
	}
	rows, err := m.conn.Query(ctx, heldSQL, ps)
	if err != nil {
		return nil, fmt.Errorf("read held locks: %w", err)
	}
	defer rows.Close()
	out := map[uint32][]RelLock{}
	for rows.Next() {
		var pid int32
		var db, rel uint32
		if err := rows.Scan(&pid, &db, &rel); err != nil {
			return nil, err
		}
		out[uint32(pid)] = append(out[uint32(pid)], RelLock{DB: db, Rel: rel})
	}
	return out, rows.Err()
}

// BackendWatcher is a LockMonitor that can tell which backends are still
// alive: a session's locks (advisory locks, an open transaction's) are
// released only when its backend exits, after its client has gone.
type BackendWatcher interface {
	Alive(ctx context.Context, pids []uint32) ([]uint32, error)
}

// Alive implements BackendWatcher.
func (m *PGMonitor) Alive(ctx context.Context, pids []uint32) ([]uint32, error) {
	ps := make([]int32, len(pids))
	for i, p := range pids {
		ps[i] = int32(p)
	}
	rows, err := m.conn.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE pid = ANY($1::int4[])`, ps)
	if err != nil {
		return nil, fmt.Errorf("read live backends: %w", err)
	}
	defer rows.Close()
	var out []uint32
	for rows.Next() {
		var pid int32
		if err := rows.Scan(&pid); err != nil {
			return nil, err
		}
		out = append(out, uint32(pid))
	}
	return out, rows.Err()
}

// PGMonitor polls on one dedicated connection with one prepared statement.
// It is used by one attempt at a time.
type PGMonitor struct {
	conn *pgx.Conn
	pids []int32
	acts []int32
}

// NewPGMonitor connects and prepares the polling statement.
func NewPGMonitor(ctx context.Context, connString string) (*PGMonitor, error) {
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		return nil, fmt.Errorf("connect the lock monitor: %w", err)
	}
	if _, err := conn.Prepare(ctx, "interleave_waits", waitsSQL); err != nil {
		conn.Close(ctx)
		return nil, fmt.Errorf("prepare the lock monitor query: %w", err)
	}
	return &PGMonitor{conn: conn}, nil
}

// Waits implements LockMonitor.
func (m *PGMonitor) Waits(ctx context.Context, pids, actorPIDs []uint32) ([]Wait, error) {
	m.pids = m.pids[:0]
	for _, p := range pids {
		m.pids = append(m.pids, int32(p))
	}
	m.acts = m.acts[:0]
	for _, p := range actorPIDs {
		m.acts = append(m.acts, int32(p))
	}
	rows, err := m.conn.Query(ctx, "interleave_waits", m.pids, m.acts)
	if err != nil {
		return nil, fmt.Errorf("poll lock waits: %w", err)
	}
	defer rows.Close()
	var out []Wait
	for rows.Next() {
		var pid int32
		var by bool
		var blockers, snapshot []int32
		if err := rows.Scan(&pid, &by, &blockers, &snapshot); err != nil {
			return nil, err
		}
		w := Wait{PID: uint32(pid), ByActors: by}
		for _, b := range blockers {
			w.Blockers = append(w.Blockers, uint32(b))
		}
		for _, b := range snapshot {
			w.SnapshotBlockers = append(w.SnapshotBlockers, uint32(b))
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// PID is the monitor's own backend pid.
func (m *PGMonitor) PID() uint32 { return m.conn.PgConn().PID() }

// Close ends the monitor connection.
func (m *PGMonitor) Close(ctx context.Context) error { return m.conn.Close(ctx) }

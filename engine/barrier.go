package engine

import (
	"context"
	"os"
	"strings"

	"github.com/jackc/pgx/v5"
)

// barrier is the lock a pair's two statements wait on inside PostgreSQL
// until both have reached it (see sched.Barrier): ACCESS EXCLUSIVE on every
// user relation no session holds a lock on, taken on a connection of its
// own, in a transaction that ends when the pair may go.
type barrier struct {
	conn *pgx.Conn
	pid  uint32
}

const unlockedRelationsSQL = `SELECT format('%I.%I', n.nspname, c.relname)
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'm') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
  AND n.nspname NOT LIKE 'pg_toast%' AND n.nspname NOT LIKE 'pg_temp_%'
  AND NOT EXISTS (SELECT 1 FROM pg_locks l
                  WHERE l.relation = c.oid AND l.pid <> pg_backend_pid()
                    AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()))
ORDER BY 1`

// Hold implements sched.Barrier.
func (b *barrier) Hold(ctx context.Context) (uint32, bool) {
	rows, err := b.conn.Query(ctx, unlockedRelationsSQL)
	if err != nil {
		return 0, false
	}
	rels, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(rels) == 0 {
		return 0, false
	}
	if _, err := b.conn.Exec(ctx, "BEGIN; LOCK TABLE "+strings.Join(rels, ", ")+" IN ACCESS EXCLUSIVE MODE NOWAIT", pgx.QueryExecModeSimpleProtocol); err != nil {
		_, _ = b.conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
		return 0, false
	}
	return b.pid, true
}

// Release implements sched.Barrier.
func (b *barrier) Release(ctx context.Context) {
	_, _ = b.conn.Exec(context.WithoutCancel(ctx), "COMMIT")
}

// barrierFor returns the worker's barrier, connecting it on first use; nil
// when the search releases no pairs.
func (w *worker) barrierFor(ctx context.Context) *barrier {
	if w.env.opts.Search.Overlap != "pairs" || os.Getenv("INTERLEAVE_NO_BARRIER") != "" {
		return nil // the variable is for measuring what the barrier does
	}
	if w.barrier == nil || w.barrier.conn.IsClosed() {
		c, err := pgx.Connect(ctx, w.env.server.ConnString(w.db))
		if err != nil {
			return nil
		}
		w.barrier = &barrier{conn: c, pid: c.PgConn().PID()}
	}
	return w.barrier
}

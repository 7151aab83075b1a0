package pgserver

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// How a dedicated server's databases left by a killed run are found: every
// database Interleave creates is named interleave_<16 hex>, carries a
// comment that marks it as Interleave's with its creation time, and is held
// by a session-level advisory lock (keys derived from its name) on the
// creating run's maintenance connection for as long as that run lives. The
// server releases the lock when the run dies, however it dies. A sweep
// drops a database only if all of these hold: the name has that form, the
// mark is there, no session holds its lock, no session is connected to it,
// and it is older than the minimum age.

const ownerCommentPrefix = "interleave-owned v1; created "

// DefaultDatabaseMinAge is how old an unheld database must be before a run
// drops it on its own (`interleave clean --database-url` drops younger ones
// when asked).
const DefaultDatabaseMinAge = 10 * time.Minute

func ownerComment() string {
	return ownerCommentPrefix + time.Now().UTC().Format(time.RFC3339)
}

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// databaseLockKeys are the two int4 advisory-lock keys of an owned name:
// its 64 random bits.
func databaseLockKeys(name string) (hi, lo int32) {
	h := strings.TrimPrefix(name, "interleave_")
	a, _ := strconv.ParseUint(h[:8], 16, 32)
	b, _ := strconv.ParseUint(h[8:], 16, 32)
	return int32(uint32(a)), int32(uint32(b))
}

// DatabaseSweepOptions say what SweepDatabases may drop.
type DatabaseSweepOptions struct {
	MinAge time.Duration
	DryRun bool
}

// SweptDatabase is one interleave_<hex> database a sweep looked at.
type SweptDatabase struct {
	Name    string
	Created time.Time // zero when it has no mark
	Reason  string    // why it was kept
}

// DatabaseSweep lists what was dropped (or would be) and what was kept.
type DatabaseSweep struct {
	Dropped, Kept []SweptDatabase
}

// SweepDatabases drops the databases that runs killed outright left on the
// server at rawURL (see above for what makes one droppable). It never drops
// a database without Interleave's name and mark.
func SweepDatabases(ctx context.Context, rawURL string, opts DatabaseSweepOptions) (DatabaseSweep, error) {
	var res DatabaseSweep
	conn, err := pgx.Connect(ctx, rawURL)
	if err != nil {
		return res, fmt.Errorf("connect to sweep databases: %s", redactURLError(err))
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, `SELECT d.datname, coalesce(shobj_description(d.oid, 'pg_database'), ''),
			(SELECT count(*) FROM pg_stat_activity a WHERE a.datname = d.datname)
		FROM pg_database d WHERE d.datname ~ '^interleave_[0-9a-f]{16}$' ORDER BY 1`)
	if err != nil {
		return res, fmt.Errorf("list databases: %w", err)
	}
	type candidate struct {
		name, comment string
		sessions      int64
	}
	cands, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (candidate, error) {
		var c candidate
		return c, r.Scan(&c.name, &c.comment, &c.sessions)
	})
	if err != nil {
		return res, fmt.Errorf("list databases: %w", err)
	}
	held, err := heldDatabaseLocks(ctx, conn)
	if err != nil {
		return res, err
	}
	for _, c := range cands {
		d := SweptDatabase{Name: c.name}
		hi, lo := databaseLockKeys(c.name)
		created, marked := strings.CutPrefix(c.comment, ownerCommentPrefix)
		if marked {
			d.Created, _ = time.Parse(time.RFC3339, created)
		}
		switch {
		case !IsOwnedName(c.name):
			continue
		case !marked || d.Created.IsZero():
			d.Reason = "it has no Interleave mark (made by someone else, or by an Interleave older than the mark); drop it by hand if it is yours"
		case held[[2]uint32{uint32(hi), uint32(lo)}]:
			d.Reason = "a live run holds it"
		case c.sessions > 0:
			d.Reason = fmt.Sprintf("%d sessions are connected to it", c.sessions)
		case time.Since(d.Created) < opts.MinAge:
			d.Reason = fmt.Sprintf("younger than %v", opts.MinAge)
		}
		if d.Reason == "" && !opts.DryRun {
			if err := dropUnheld(ctx, conn, c.name, hi, lo); err != nil {
				d.Reason = err.Error()
			}
		}
		if d.Reason != "" {
			res.Kept = append(res.Kept, d)
		} else {
			res.Dropped = append(res.Dropped, d)
		}
	}
	return res, nil
}

func heldDatabaseLocks(ctx context.Context, conn *pgx.Conn) (map[[2]uint32]bool, error) {
	rows, err := conn.Query(ctx, `SELECT classid::bigint, objid::bigint FROM pg_locks
		WHERE locktype = 'advisory' AND objsubid = 2 AND granted`)
	if err != nil {
		return nil, fmt.Errorf("list advisory locks: %w", err)
	}
	held := map[[2]uint32]bool{}
	var a, b int64
	_, err = pgx.ForEachRow(rows, []any{&a, &b}, func() error {
		held[[2]uint32{uint32(a), uint32(b)}] = true
		return nil
	})
	return held, err
}

// dropUnheld takes the database's lock itself (so that two sweeps do not
// race), drops it unless someone connected meanwhile, and lets the lock go.
func dropUnheld(ctx context.Context, conn *pgx.Conn, name string, hi, lo int32) error {
	var got bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1, $2)", hi, lo).Scan(&got); err != nil {
		return err
	}
	if !got {
		return fmt.Errorf("a live run holds it")
	}
	defer conn.Exec(context.Background(), "SELECT pg_advisory_unlock($1, $2)", hi, lo)
	if _, err := conn.Exec(ctx, "DROP DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return fmt.Errorf("drop failed: %w", err)
	}
	return nil
}

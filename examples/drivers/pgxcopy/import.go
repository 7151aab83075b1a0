// Package pgxcopy is the COPY FROM STDIN example (conn.CopyFrom, which pgx
// sends as a simple Query followed by CopyData and CopyDone): a daily import
// that runs twice. Each run of the job opens a transaction, checks whether
// today's import already happened (SELECT count(*) FROM imports), and if
// not bulk-loads the day's readings with CopyFrom and records the import.
// Two runs started together (a retried cron job, two workers) both see no
// import under READ COMMITTED, and both load the rows: every reading is
// imported twice. The transaction alone does not help, since neither run has
// committed when the other checks.
//
// The repair takes a transaction-scoped advisory lock for the job,
// pg_advisory_xact_lock, before the check, with the CopyFrom and the record
// in the same transaction. The second run waits on the lock until the first
// commits; its check then sees the recorded import and it skips the load.
package pgxcopy

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
)

// Day is the import's day.
var Day = time.Date(2024, time.May, 1, 0, 0, 0, 0, time.UTC)

// Readings are the day's source rows.
var Readings = [][]any{
	{Day, "north", int32(12)},
	{Day, "south", int32(17)},
	{Day, "east", int32(9)},
}

// importLock is the advisory lock key of the daily import job.
const importLock = 4242

// Import is the application code. It reports how many rows it loaded (0 when
// the day was already imported). With lock set it serialises runs with an
// advisory lock taken before the check.
func Import(ctx context.Context, conn *pgx.Conn, day time.Time, rows [][]any, lock bool) (int64, error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a no-op after Commit

	if lock {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", importLock); err != nil {
			return 0, err
		}
	}
	var done int
	if err := tx.QueryRow(ctx, "SELECT count(*) FROM imports WHERE day = $1", day).Scan(&done); err != nil {
		return 0, err
	}
	if done > 0 {
		return 0, tx.Commit(ctx)
	}
	n, err := tx.CopyFrom(ctx, pgx.Identifier{"readings"}, []string{"day", "sensor", "value"}, pgx.CopyFromRows(rows))
	if err != nil {
		return 0, err
	}
	if _, err := tx.Exec(ctx, "INSERT INTO imports (day, rows) VALUES ($1, $2)", day, n); err != nil {
		return 0, err
	}
	return n, tx.Commit(ctx)
}

// Scenario: two runs of the daily import; the day's rows must be loaded
// exactly once.
func Scenario(fixed bool) interleave.Scenario {
	name := "pgxcopy-double-import"
	if fixed {
		name = "pgxcopy-double-import-fixed"
	}
	run := func(ctx context.Context, connString string) (any, error) {
		conn, err := pgx.Connect(ctx, connString)
		if err != nil {
			return nil, err
		}
		defer conn.Close(context.Background())
		return Import(ctx, conn, Day, Readings, fixed)
	}
	return interleave.Scenario{
		Name: name,
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, `CREATE TABLE readings (day date NOT NULL, sensor text NOT NULL, value int NOT NULL);
				CREATE TABLE imports (id serial PRIMARY KEY, day date NOT NULL, rows bigint NOT NULL)`)
			return err
		},
		Actors: []interleave.Actor{{Name: "cron", Run: run}, {Name: "retry", Run: run}},
		Invariant: func(ctx context.Context, db *pgx.Conn, results []interleave.ActorResult) error {
			var readings, imports int
			if err := db.QueryRow(ctx, "SELECT (SELECT count(*) FROM readings), (SELECT count(*) FROM imports)").Scan(&readings, &imports); err != nil {
				return err
			}
			var loaded int64
			for _, r := range results {
				n, ok := r.Value.(int64)
				if !ok {
					return errors.New("an import run returned no row count")
				}
				loaded += n
			}
			if readings != len(Readings) || imports != 1 || loaded != int64(len(Readings)) {
				return fmt.Errorf("the import of %s ran %d times: %d readings for %d source rows", Day.Format(time.DateOnly), imports, readings, len(Readings))
			}
			return nil
		},
	}
}

package libpq

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/lib/pq"
	"github.com/pginterleave/interleave"
)

// Reading is one row of a night's import file.
type Reading struct {
	Sensor string
	Value  int
}

// importLock is the advisory lock key of the nightly import.
const importLock = 20260401

// Import is the application code: in one transaction, check that day has
// not been imported, COPY its readings in, record the import. With lock it
// first takes the import's transaction-scoped advisory lock (the repair).
// It reports whether it loaded the readings.
func Import(ctx context.Context, db *sql.DB, day string, readings []Reading, lock bool) (bool, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	if lock {
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", importLock); err != nil {
			return false, err
		}
	}
	var done bool
	if err := tx.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM imports WHERE day = $1)", day).Scan(&done); err != nil {
		return false, err
	}
	if done {
		return false, tx.Rollback()
	}
	stmt, err := tx.PrepareContext(ctx, pq.CopyIn("readings", "day", "sensor", "value"))
	if err != nil {
		return false, err
	}
	for _, r := range readings {
		if _, err := stmt.ExecContext(ctx, day, r.Sensor, r.Value); err != nil {
			stmt.Close()
			return false, err
		}
	}
	res, err := stmt.ExecContext(ctx) // flush: CopyDone, and the server's "COPY n"
	if err != nil {
		stmt.Close()
		return false, err
	}
	if err := stmt.Close(); err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, err
	}
	if n != int64(len(readings)) {
		return false, fmt.Errorf("COPY loaded %d rows, want %d", n, len(readings))
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO imports (day, rows) VALUES ($1, $2)", day, n); err != nil {
		return false, err
	}
	return true, tx.Commit()
}

// nightlyReadings is the night's import file.
var nightlyReadings = []Reading{{"north", 12}, {"south", 15}, {"east", 9}}

// ImportScenario: the nightly import is started twice for the same day; the
// day's readings must be loaded exactly once.
//
// The importers connect with binary_parameters=yes, so lib/pq sends each
// parameterized statement as one Parse/Bind/Describe/Execute/Sync unit
// (Scenario covers the default two-round-trip path).
func ImportScenario(fixed bool) interleave.Scenario {
	name := "libpq-copy-import"
	if fixed {
		name = "libpq-copy-import-fixed"
	}
	const day = "2026-04-01"
	actor := func(ctx context.Context, connString string) (any, error) {
		db, err := open(connString + "&binary_parameters=yes")
		if err != nil {
			return nil, err
		}
		defer db.Close()
		return Import(ctx, db, day, nightlyReadings, fixed)
	}
	return interleave.Scenario{
		Name: name,
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, `CREATE TABLE readings (day date NOT NULL, sensor text NOT NULL, value int NOT NULL);
				CREATE TABLE imports (day date NOT NULL, rows int NOT NULL)`)
			return err
		},
		Actors: []interleave.Actor{{Name: "cron", Run: actor}, {Name: "operator", Run: actor}},
		Invariant: func(ctx context.Context, db *pgx.Conn, results []interleave.ActorResult) error {
			var readings, imports int
			if err := db.QueryRow(ctx, "SELECT (SELECT count(*) FROM readings WHERE day = '"+day+"'), (SELECT count(*) FROM imports WHERE day = '"+day+"')").Scan(&readings, &imports); err != nil {
				return err
			}
			if readings != len(nightlyReadings) || imports != 1 {
				return fmt.Errorf("the import of %s ran %d times: %d readings loaded, want %d", day, imports, readings, len(nightlyReadings))
			}
			loaded := 0
			for _, r := range results {
				if ok, _ := r.Value.(bool); ok {
					loaded++
				}
			}
			if loaded != 1 {
				return fmt.Errorf("%d importers reported loading %s, want 1", loaded, day)
			}
			return nil
		},
	}
}

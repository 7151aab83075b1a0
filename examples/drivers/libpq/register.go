// Package libpq is the github.com/lib/pq example, through database/sql, with
// two races.
//
// Username registration: each request counts the users with the requested
// name and inserts one when the count is zero, on a table with no unique
// constraint. Two requests for the same name can both count zero before
// either inserts, and the name is registered twice. The repair lets the
// database decide: a unique index on username and INSERT ... ON CONFLICT
// (username) DO NOTHING, where "no row inserted" means "the name is taken".
//
// Nightly import (lib/pq's COPY support): an importer opens a transaction,
// checks that the day has not been imported yet, loads the day's readings
// with pq.CopyIn and records the import. Two importers started for the same
// night both see "not imported" and the readings are loaded twice. The
// repair takes a transaction-scoped advisory lock first, so the second
// importer waits, and checks inside that transaction once it holds the
// lock: it then sees the first import and loads nothing.
package libpq

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"
	_ "github.com/lib/pq" // registers the "postgres" database/sql driver
	"github.com/pginterleave/interleave"
)

// Register is the application code: check, then insert.
func Register(ctx context.Context, db *sql.DB, username string) (bool, error) {
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM users WHERE username = $1", username).Scan(&n); err != nil {
		return false, err
	}
	if n > 0 {
		return false, nil
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO users (username) VALUES ($1)", username); err != nil {
		return false, err
	}
	return true, nil
}

// RegisterFixed inserts unless the unique index already holds the name; no
// row inserted means the name is taken.
func RegisterFixed(ctx context.Context, db *sql.DB, username string) (bool, error) {
	res, err := db.ExecContext(ctx, "INSERT INTO users (username) VALUES ($1) ON CONFLICT (username) DO NOTHING", username)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, err
	}
	return n == 1, nil
}

// open returns a database/sql pool on lib/pq limited to one connection, as
// one request would use.
func open(connString string) (*sql.DB, error) {
	db, err := sql.Open("postgres", connString)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// Scenario: two requests register the same username; the name must exist
// exactly once, and exactly the requests told "registered" created it.
func Scenario(fixed bool) interleave.Scenario {
	register := Register
	name := "libpq-register"
	setup := `CREATE TABLE users (id serial PRIMARY KEY, username text NOT NULL)`
	if fixed {
		register, name = RegisterFixed, "libpq-register-fixed"
		setup += `; CREATE UNIQUE INDEX users_username ON users (username)`
	}
	actor := func(ctx context.Context, connString string) (any, error) {
		db, err := open(connString)
		if err != nil {
			return nil, err
		}
		defer db.Close()
		return register(ctx, db, "alice")
	}
	return interleave.Scenario{
		Name: name,
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, setup)
			return err
		},
		Actors: []interleave.Actor{{Name: "request1", Run: actor}, {Name: "request2", Run: actor}},
		Invariant: func(ctx context.Context, db *pgx.Conn, results []interleave.ActorResult) error {
			var n int
			if err := db.QueryRow(ctx, "SELECT count(*) FROM users WHERE username = 'alice'").Scan(&n); err != nil {
				return err
			}
			if n != 1 {
				return fmt.Errorf("username alice was registered %d times, want exactly once", n)
			}
			told := 0
			for _, r := range results {
				if ok, _ := r.Value.(bool); ok {
					told++
				}
			}
			if told != n {
				return fmt.Errorf("%d requests were told they registered alice, but %d rows exist", told, n)
			}
			return nil
		},
	}
}

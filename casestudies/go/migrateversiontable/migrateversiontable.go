// Package migrateversiontable is golang-migrate issue #55: two services
// start at once and each opens the postgres driver (postgres.WithInstance),
// which checks information_schema for schema_migrations and creates it
// when missing, before and without the advisory lock that m.Up() takes;
// the second CREATE TABLE fails ("relation already exists", or a duplicate
// key in pg_type_typname_nsp_index when both run at once). PR #150 ("Make
// ensureVersionTable atomic", 2019) takes pg_advisory_lock around the
// check and the CREATE. The racy variant is v3.5.4, the highest v3 release
// the module proxy lists (github.com/golang-migrate/migrate, no go.mod:
// +incompatible), whose ensureVersionTable has no lock; the fixed one
// v4.18.3.
package migrateversiontable

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"path"

	migratev3 "github.com/golang-migrate/migrate"
	postgresv3 "github.com/golang-migrate/migrate/database/postgres"
	bindatav3 "github.com/golang-migrate/migrate/source/go_bindata"
	migratev4 "github.com/golang-migrate/migrate/v4"
	postgresv4 "github.com/golang-migrate/migrate/v4/database/postgres"
	bindatav4 "github.com/golang-migrate/migrate/v4/source/go_bindata"
	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	gostudies "github.com/pginterleave/interleave/casestudies/go"
)

//go:embed migrations/*.sql
var embedded embed.FS

// names are the migration files, as go-bindata's AssetNames would list
// them; asset reads one.
func names() []string {
	entries, err := embedded.ReadDir("migrations")
	if err != nil {
		panic(err) // the directory is embedded above
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func asset(name string) ([]byte, error) { return embedded.ReadFile(path.Join("migrations", name)) }

// Study is the record of docs/case-studies.md.
var Study = &gostudies.Study{
	Name:   "migrate-version-table",
	Module: "github.com/golang-migrate/migrate v3.5.4+incompatible, github.com/golang-migrate/migrate/v4 v4.18.3",
	Upstream: []string{
		"https://github.com/golang-migrate/migrate/issues/55: pq: duplicate key value violates unique constraint \"pg_type_typname_nsp_index\" in CREATE TABLE \"schema_migrations\", reported with migrate v3.2.0 and the postgres driver",
		"https://github.com/golang-migrate/migrate/pull/150: \"postgres: Make ensureVersionTable atomic\" (Fixes #55): ensureVersionTable takes the advisory lock around the check and the CREATE",
	},
	Racy:  gostudies.Variant{Label: "v3.5.4: postgres.WithInstance then m.Up()", Scenario: scenario("migrate-version-table-racy", upV3)},
	Fixed: gostudies.Variant{Label: "v4.18.3: postgres.WithInstance then m.Up()", Scenario: scenario("migrate-version-table-fixed", upV4)},
	Bound: 0, // every order: its actors keep to one connection at a time (single-producer, the default profile)
}

// scenario is an empty database and two services starting at once, each
// migrating it up with the one migration.
func scenario(name string, up func(db *sql.DB) error) interleave.Scenario {
	start := func(ctx context.Context, connString string) (any, error) {
		db, err := sql.Open("postgres", connString) // lib/pq, as golang-migrate's postgres driver uses
		if err != nil {
			return nil, err
		}
		defer db.Close()
		if err := up(db); err != nil {
			// The outcome is for the invariant to judge.
			return err.Error(), nil
		}
		return "ok", nil
	}
	return interleave.Scenario{
		Name:      name,
		Actors:    []interleave.Actor{{Name: "alice", Run: start}, {Name: "bob", Run: start}},
		Invariant: invariant,
	}
}

// upV3 is the README's way to migrate an existing *sql.DB, at v3.5.4.
func upV3(db *sql.DB) error {
	driver, err := postgresv3.WithInstance(db, &postgresv3.Config{})
	if err != nil {
		return err
	}
	src, err := bindatav3.WithInstance(bindatav3.Resource(names(), asset))
	if err != nil {
		return err
	}
	m, err := migratev3.NewWithInstance("go-bindata", src, "postgres", driver)
	if err != nil {
		return err
	}
	if err := m.Up(); err != nil && !errors.Is(err, migratev3.ErrNoChange) {
		return err
	}
	return nil
}

// upV4 is the same at v4.18.3.
func upV4(db *sql.DB) error {
	driver, err := postgresv4.WithInstance(db, &postgresv4.Config{})
	if err != nil {
		return err
	}
	src, err := bindatav4.WithInstance(bindatav4.Resource(names(), asset))
	if err != nil {
		return err
	}
	m, err := migratev4.NewWithInstance("go-bindata", src, "postgres", driver)
	if err != nil {
		return err
	}
	if err := m.Up(); err != nil && !errors.Is(err, migratev4.ErrNoChange) {
		return err
	}
	return nil
}

// invariant: both services start (their migrate step succeeds or finds
// nothing to do) and the database is at version 1, clean.
func invariant(ctx context.Context, db *pgx.Conn, results []interleave.ActorResult) error {
	var errs []error
	for _, r := range results {
		if r.Err != nil {
			return fmt.Errorf("%s: %w", r.Actor, r.Err)
		}
		if r.Value != "ok" {
			errs = append(errs, fmt.Errorf("%s: the service failed to migrate: %v", r.Actor, r.Value))
		}
	}
	var version int64
	var dirty bool
	if err := db.QueryRow(ctx, "SELECT version, dirty FROM schema_migrations").Scan(&version, &dirty); err != nil {
		errs = append(errs, fmt.Errorf("reading schema_migrations: %w", err))
	} else if version != 1 || dirty {
		errs = append(errs, fmt.Errorf("schema_migrations says version %d, dirty %v; want 1, clean", version, dirty))
	}
	return errors.Join(errs...)
}

// Package gooseup is pressly/goose issue #258: two instances of an
// application call goose.Up at start-up; both read the applied versions
// before either applies the new migration, both apply it, and the second
// fails ("relation \"widgets\" already exists"). The maintainers answered
// that goose is meant to run as a singleton; issue #335 asked for a lock,
// and goose's Provider API takes one with
// WithSessionLocker(lock.NewPostgresSessionLocker()).
package gooseup

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pginterleave/interleave"
	gostudies "github.com/pginterleave/interleave/casestudies/go"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

//go:embed migrations/*.sql
var embedded embed.FS

// migrations is the one migration both instances deploy.
func migrations() fs.FS {
	sub, err := fs.Sub(embedded, "migrations")
	if err != nil {
		panic(err) // the directory is embedded above
	}
	return sub
}

// Study is the record of docs/case-studies.md.
var Study = &gostudies.Study{
	Name:   "goose-up",
	Module: "github.com/pressly/goose/v3 v3.26.0",
	Upstream: []string{
		"https://github.com/pressly/goose/issues/258: two instances running goose.Run(\"up\") at once; one fails applying a migration the other applied; answered as intended behaviour (run goose as a singleton)",
		"https://github.com/pressly/goose/issues/335: request for a lock that prevents parallel execution; goose's Provider now offers WithSessionLocker (PostgreSQL advisory lock)",
	},
	Racy:  gostudies.Variant{Label: "goose.Up (package functions, no lock)", Scenario: scenario("goose-up-racy", upPackage)},
	Fixed: gostudies.Variant{Label: "Provider.Up with lock.NewPostgresSessionLocker", Scenario: scenario("goose-up-fixed", upProvider)},
	Bound: 0, // every order: its actors keep to one connection at a time (single-producer, the default profile)
}

// scenario is a database on which the application has run before (goose's
// version table holds version 0) and two instances deploying the release
// that adds migration 1.
func scenario(name string, up func(ctx context.Context, db *sql.DB) error) interleave.Scenario {
	deploy := func(ctx context.Context, connString string) (any, error) {
		db, err := sql.Open("pgx", connString)
		if err != nil {
			return nil, err
		}
		defer db.Close()
		if err := up(ctx, db); err != nil {
			// The outcome is for the invariant to judge.
			return err.Error(), nil
		}
		return "ok", nil
	}
	return interleave.Scenario{
		Name:      name,
		Setup:     setup,
		Actors:    []interleave.Actor{{Name: "alice", Run: deploy}, {Name: "bob", Run: deploy}},
		Invariant: invariant,
	}
}

// upPackage is what issue #258 runs: the package-level API.
func upPackage(ctx context.Context, db *sql.DB) error {
	goose.SetLogger(goose.NopLogger())
	goose.SetBaseFS(migrations())
	if err := goose.SetDialect("postgres"); err != nil {
		return err
	}
	return goose.UpContext(ctx, db, ".")
}

// upProvider is the same deploy through the Provider with the PostgreSQL
// session locker. The locker polls pg_try_advisory_lock; here it tries
// twice, one second apart (the smallest period and threshold goose
// accepts), and then Up fails with "failed to acquire lock". The default
// (every 5 s for 5 minutes) only waits longer: the orders that matter are
// those of the migration's statements against the lock, and a deploy that
// gives up waiting migrates on its next start.
func upProvider(ctx context.Context, db *sql.DB) error {
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 1))
	if err != nil {
		return err
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, migrations(), goose.WithSessionLocker(locker))
	if err != nil {
		return err
	}
	_, err = p.Up(ctx)
	return err
}

// setup creates goose's version table as goose itself does (version 0):
// the application has been deployed before.
func setup(ctx context.Context, conn *pgx.Conn) error {
	db := stdlib.OpenDB(*conn.Config())
	defer db.Close()
	goose.SetLogger(goose.NopLogger())
	if err := goose.SetDialect("postgres"); err != nil {
		return err
	}
	_, err := goose.EnsureDBVersionContext(ctx, db)
	return err
}

// lockBusy is how the Provider's Up fails when the session locker gave up
// waiting: by design, like a second deploy that finds the lock taken.
const lockBusy = "failed to acquire lock"

// invariant: each deploy succeeds or gives up waiting for the lock, at
// least one succeeds, and migration 1 is recorded exactly once.
func invariant(ctx context.Context, db *pgx.Conn, results []interleave.ActorResult) error {
	var errs []error
	succeeded := 0
	for _, r := range results {
		if r.Err != nil {
			return fmt.Errorf("%s: %w", r.Actor, r.Err)
		}
		msg, _ := r.Value.(string)
		switch {
		case msg == "ok":
			succeeded++
		case !strings.Contains(msg, lockBusy):
			errs = append(errs, fmt.Errorf("%s: the deploy failed: %v", r.Actor, r.Value))
		}
	}
	if succeeded == 0 && len(errs) == 0 {
		errs = append(errs, fmt.Errorf("no deploy applied the migration: both gave up waiting for the lock"))
	}
	var applied int
	if err := db.QueryRow(ctx, "SELECT count(*) FROM goose_db_version WHERE version_id = 1 AND is_applied").Scan(&applied); err != nil {
		return err
	}
	if applied != 1 {
		errs = append(errs, fmt.Errorf("migration 1 is recorded %d times, want 1", applied))
	}
	return errors.Join(errs...)
}

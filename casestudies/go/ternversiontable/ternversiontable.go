// Package ternversiontable is jackc/tern issue #19 ("Race condition with
// initial migration"): tern's NewMigrator checks for the version table and
// creates it (create table if not exists, then insert version 0) without
// the advisory lock that Migrate takes. Three services migrating an empty
// database at once got "duplicate key value violates unique constraint
// pg_type_typname_nsp_index" from that statement. In tern v1.9.1 the check
// and the CREATE run unlocked; commit 0189c51 ("Protect against multiple
// migrators on first run", released in v1.10.0) takes the advisory lock
// around them, as v1.10.2 and tern/v2 do. Both tern v1 releases cannot be linked into
// one program (one module path), so the safe variant is tern/v2 v2.3.4,
// whose ensureSchemaVersionTableExists is v1.10.2's with the lock.
//
// One at a time the race cannot show: the loser's "create table if not
// exists" finds the winner's committed table. It needs both statements
// executing at once, so this study searches with overlap pairs.
package ternversiontable

import (
	"context"
	"errors"
	"fmt"

	pgxv4 "github.com/jackc/pgx/v4"
	"github.com/jackc/pgx/v5"
	ternv1 "github.com/jackc/tern/migrate"
	ternv2 "github.com/jackc/tern/v2/migrate"
	"github.com/pginterleave/interleave"
	gostudies "github.com/pginterleave/interleave/casestudies/go"
	"github.com/pginterleave/interleave/search"
)

// The one migration both services deploy.
const (
	migrationName = "001_create_widgets.sql"
	upSQL         = "CREATE TABLE widgets (id integer PRIMARY KEY, name text NOT NULL);"
	downSQL       = "DROP TABLE widgets;"
)

// Study is the record of docs/case-studies.md.
var Study = &gostudies.Study{
	Name:   "tern-version-table",
	Module: "github.com/jackc/tern v1.9.1 (pgx v4), github.com/jackc/tern/v2 v2.3.4 (pgx v5)",
	Upstream: []string{
		"https://github.com/jackc/tern/issues/19: \"Race condition with initial migration\": NewMigrator's version-table creation runs without the advisory lock; three services on an empty database get duplicate key value violates unique constraint \"pg_type_typname_nsp_index\" (closed). The lock came with commit 0189c515b2b60790fa07d7cd5c529db814536310, \"Protect against multiple migrators on first run\" (2020-03-07, in tags v1.10.0 and later of the repository); the module proxy's zips agree: ensureSchemaVersionTableExists has no lock in v1.9.1 and takes it in v1.10.2 (v1.10.0 and v1.10.1 were not obtainable from the proxy here). The commit's message does not cite #19",
	},
	Racy:    gostudies.Variant{Label: "tern v1.9.1: NewMigrator then Migrate", Scenario: scenario("tern-version-table-racy", migrateV1)},
	Fixed:   gostudies.Variant{Label: "tern/v2 v2.3.4: NewMigrator then Migrate", Scenario: scenario("tern-version-table-fixed", migrateV2)},
	Options: pairOptions(),
	Bound:   0, // every order, pairs included (3 December: two advisory lock calls are no pair)
}

// pairOptions let the search release two statements at once.
func pairOptions() interleave.Options {
	var o interleave.Options
	o.Search.Overlap = search.Pairs
	return o
}

func scenario(name string, migrate func(ctx context.Context, connString string) error) interleave.Scenario {
	start := func(ctx context.Context, connString string) (any, error) {
		if err := migrate(ctx, connString); err != nil {
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

func migrateV1(ctx context.Context, connString string) error {
	conn, err := pgxv4.Connect(ctx, connString)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	m, err := ternv1.NewMigrator(ctx, conn, "version")
	if err != nil {
		return err
	}
	m.AppendMigration(migrationName, upSQL, downSQL)
	return m.Migrate(ctx)
}

func migrateV2(ctx context.Context, connString string) error {
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	m, err := ternv2.NewMigrator(ctx, conn, "version")
	if err != nil {
		return err
	}
	m.AppendMigration(migrationName, upSQL, downSQL)
	return m.Migrate(ctx)
}

// invariant: both services migrate, the version table holds one row at
// version 1.
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
	var rows int
	var version int32
	if err := db.QueryRow(ctx, "SELECT count(*), max(version) FROM version").Scan(&rows, &version); err != nil {
		errs = append(errs, fmt.Errorf("reading the version table: %w", err))
	} else if rows != 1 || version != 1 {
		errs = append(errs, fmt.Errorf("the version table holds %d rows, highest version %d; want one row at version 1", rows, version))
	}
	return errors.Join(errs...)
}

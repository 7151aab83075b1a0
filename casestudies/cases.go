package casestudies

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
)

// Version is one npm project of a case: a directory whose package.json and
// package-lock.json pin the library at Label.
type Version struct {
	Label string // the library's version, "0.95.11"
	Dir   string // relative to this package's directory, "knex/v0.95.11"
}

// Case is a historical race: the same scenario run against the release with
// the bug (Before) and the release that fixed it (After).
type Case struct {
	// Name is the scenario name, shared by both versions so that an
	// artifact recorded against Before can be replayed (guided) against
	// After.
	Name    string
	Library string
	Dir     string   // the case's directory: actor script, migrations
	Script  string   // the actor script, relative to Dir
	Files   []string // other files the actors read, relative to Dir
	Before  Version
	After   Version
	// Setup is SQL run on a direct connection before the actors start.
	Setup string
	// Invariant judges the database and the actors' JSON results.
	Invariant func(ctx context.Context, db *pgx.Conn, results []interleave.ActorResult) error
}

// actorNames are the two concurrent deploys or requests of every case.
var actorNames = []string{"alice", "bob"}

// Scenario is c run against version v; root is this package's directory.
func (c *Case) Scenario(root string, v Version) interleave.Scenario {
	dir := filepath.Join(root, v.Dir)
	script := filepath.Join(root, c.Dir, c.Script)
	sc := interleave.Scenario{
		Name:      c.Name,
		Invariant: c.Invariant,
	}
	if c.Setup != "" {
		setup := c.Setup
		sc.Setup = func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, setup)
			return err
		}
	}
	for _, name := range actorNames {
		sc.Actors = append(sc.Actors, interleave.CommandActor(name, []string{"node", script}, interleave.CommandOptions{Dir: dir}))
	}
	return sc
}

// SourceFiles are what an exact replay fingerprints for version v: the
// actor script, the files it reads and the version's lockfile.
func (c *Case) SourceFiles(root string, v Version) []string {
	files := []string{filepath.Join(root, c.Dir, c.Script)}
	for _, f := range c.Files {
		files = append(files, filepath.Join(root, c.Dir, f))
	}
	return append(files, filepath.Join(root, v.Dir, "package.json"), filepath.Join(root, v.Dir, "package-lock.json"))
}

// result is what an actor script prints.
type result struct {
	OK    bool   `json:"ok"`
	Error string `json:"error"`
	Code  string `json:"code"`
	// sequelize
	ID      *int64 `json:"id"`
	Created bool   `json:"created"`
}

func decode(r interleave.ActorResult) (result, error) {
	var out result
	if r.Err != nil {
		return out, fmt.Errorf("%s: %v", r.Actor, r.Err)
	}
	var raw []byte
	switch v := r.Value.(type) {
	case json.RawMessage:
		raw = v
	case []byte:
		raw = v
	case string:
		raw = []byte(v)
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return out, err
		}
		raw = b
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return out, fmt.Errorf("%s printed %q, not the JSON result: %v", r.Actor, raw, err)
	}
	return out, nil
}

func count(ctx context.Context, db *pgx.Conn, query string) (int, error) {
	var n int
	err := db.QueryRow(ctx, query).Scan(&n)
	return n, err
}

// Knex is knex #4694: ensureTable (lib/migrations/migrate/table-creator.js)
// reads knex_migrations_lock and, when it is empty, inserts the lock row;
// two deploys that both read it empty both insert. With two rows,
// Migrator._lockMigrations' UPDATE ... WHERE is_locked = 0 changes 2 rows,
// not 1, and throws "Migration table is already locked" for every later run.
var Knex = &Case{
	Name:    "knex-migration-lock",
	Library: "knex",
	Dir:     "knex",
	Script:  "migrate.js",
	Files:   []string{"migrations/20211001000000_create_widgets.js"},
	Before:  Version{Label: "0.95.11", Dir: "knex/v0.95.11"},
	After:   Version{Label: "0.95.12", Dir: "knex/v0.95.12"},
	// The two tables exactly as knex creates them, without the lock row: a
	// schema-only restore, or a first deploy that stopped after creating
	// the tables. (From an empty database the deploys also race on
	// hasTable/createTable, in both versions; that is not what #4694 fixed.)
	Setup: `create table "knex_migrations" ("id" serial primary key, "name" varchar(255), "batch" integer, "migration_time" timestamptz);
create table "knex_migrations_lock" ("index" serial primary key, "is_locked" integer);`,
	Invariant: func(ctx context.Context, db *pgx.Conn, results []interleave.ActorResult) error {
		locks, err := count(ctx, db, "SELECT count(*) FROM knex_migrations_lock")
		if err != nil {
			return err
		}
		if locks != 1 {
			return fmt.Errorf("knex_migrations_lock holds %d rows, want 1: every later migrate.latest() fails with \"Migration table is already locked\"", locks)
		}
		for _, r := range results {
			out, err := decode(r)
			if err != nil {
				return err
			}
			if !out.OK {
				return fmt.Errorf("%s: migrate.latest() failed: %s", r.Actor, out.Error)
			}
		}
		applied, err := count(ctx, db, "SELECT count(*) FROM knex_migrations WHERE name = '20211001000000_create_widgets.js'")
		if err != nil {
			return err
		}
		if applied != 1 {
			return fmt.Errorf("the migration is recorded %d times, want 1", applied)
		}
		return nil
	},
}

// NodePgMigrate is the runner of node-pg-migrate 5.10.0 (dist/runner.js):
// ensureMigrationsTable (SELECT from information_schema.tables, then CREATE
// TABLE pgmigrations) runs before lock() takes pg_try_advisory_lock, so two
// runners on an empty database both find no table and both create it; the
// second fails with "relation already exists". 6.0.0 takes the lock first.
var NodePgMigrate = &Case{
	Name:    "node-pg-migrate-table",
	Library: "node-pg-migrate",
	Dir:     "node-pg-migrate",
	Script:  "migrate.js",
	Files:   []string{"migrations/1633046400000_create-widgets.js"},
	Before:  Version{Label: "5.10.0", Dir: "node-pg-migrate/v5.10.0"},
	After:   Version{Label: "6.0.0", Dir: "node-pg-migrate/v6.0.0"},
	Invariant: func(ctx context.Context, db *pgx.Conn, results []interleave.ActorResult) error {
		for _, r := range results {
			out, err := decode(r)
			if err != nil {
				return err
			}
			// pg_try_advisory_lock does not wait: a runner that finds the
			// lock taken stops with this error, by design.
			if !out.OK && out.Error != "Another migration is already running" {
				return fmt.Errorf("%s: the runner failed: %s", r.Actor, out.Error)
			}
		}
		applied, err := count(ctx, db, "SELECT count(*) FROM pgmigrations WHERE name = '1633046400000_create-widgets'")
		if err != nil {
			return err
		}
		if applied != 1 {
			return fmt.Errorf("the migration is recorded %d times, want 1", applied)
		}
		return nil
	},
}

// Sequelize is Model.findCreateFind (lib/model.js) inside a transaction in
// sequelize 6.7.0: findOne finds nothing, create() inserts, and the loser's
// INSERT raises 23505, which aborts its PostgreSQL transaction; the
// function catches the UniqueConstraintError and runs findOne again in the
// aborted transaction (25P02). 6.8.0 runs the create with ignoreDuplicates
// (ON CONFLICT DO NOTHING) under a postgres transaction.
var Sequelize = &Case{
	Name:    "sequelize-find-create-find",
	Library: "sequelize",
	Dir:     "sequelize",
	Script:  "find-create-find.js",
	Before:  Version{Label: "6.7.0", Dir: "sequelize/v6.7.0"},
	After:   Version{Label: "6.8.0", Dir: "sequelize/v6.8.0"},
	Setup:   `CREATE TABLE tags (id serial PRIMARY KEY, name varchar(255) NOT NULL UNIQUE);`,
	Invariant: func(ctx context.Context, db *pgx.Conn, results []interleave.ActorResult) error {
		ids := map[int64]bool{}
		for _, r := range results {
			out, err := decode(r)
			if err != nil {
				return err
			}
			if !out.OK {
				code := ""
				if out.Code != "" {
					code = " (SQLSTATE " + out.Code + ")"
				}
				return fmt.Errorf("%s: the transaction with findCreateFind failed: %s%s", r.Actor, out.Error, code)
			}
			if out.ID != nil {
				ids[*out.ID] = true
			}
		}
		n, err := count(ctx, db, "SELECT count(*) FROM tags WHERE name = 'interleave'")
		if err != nil {
			return err
		}
		if n != 1 || len(ids) != 1 {
			return fmt.Errorf("%d tag rows and %d distinct ids returned; want one of each", n, len(ids))
		}
		return nil
	},
}

// Cases are the three case studies, in the order of docs/case-studies.md.
var Cases = []*Case{Knex, NodePgMigrate, Sequelize}

func (c *Case) String() string { return c.Library }

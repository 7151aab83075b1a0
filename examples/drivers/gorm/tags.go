// Package gorm is the GORM example (gorm.io/gorm v1.31.2 with
// gorm.io/driver/postgres v1.6.3, which runs on pgx's database/sql driver):
// find-or-create a tag.
//
// The race: FirstOrCreate is a check, then an insert. It runs
// SELECT ... WHERE name = $1 ... LIMIT, and when that finds nothing, an
// INSERT in its own transaction. Nothing stops two requests from both
// running the SELECT before either INSERT commits: both find nothing, both
// insert, and the tags table holds the tag "go" twice (the table has no
// unique constraint, as is common when the schema came from a model
// without one).
//
// The repair lets the database decide. A unique index on tags(name) makes a
// second "go" row impossible in any order, and Create with
// clause.OnConflict{DoNothing: true} turns the loser's unique violation
// into "0 rows inserted": when the other insert is not yet committed,
// PostgreSQL makes this INSERT wait for it and then skips the row. The
// following First is a new statement outside any transaction, so in READ
// COMMITTED it sees the committed row and both requests end up with the same
// tag. (The unique index alone, with FirstOrCreate, would keep the data
// right but fail the losing request with a duplicate-key error; a lock
// taken before FirstOrCreate would also serialise creators, but only those
// that remember to take it, where the index protects every writer.)
package gorm

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pginterleave/interleave"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/logger"
)

// Tag is the model.
type Tag struct {
	ID   uint
	Name string
}

// FindOrCreate is the application code: GORM's FirstOrCreate.
func FindOrCreate(db *gorm.DB, name string) (Tag, error) {
	var tag Tag
	err := db.Where(Tag{Name: name}).FirstOrCreate(&tag).Error
	return tag, err
}

// FindOrCreateFixed inserts unless the unique index already holds the name,
// then reads the row that is there.
func FindOrCreateFixed(db *gorm.DB, name string) (Tag, error) {
	tag := Tag{Name: name}
	if err := db.Clauses(clause.OnConflict{DoNothing: true}).Create(&tag).Error; err != nil {
		return Tag{}, err
	}
	var found Tag
	err := db.Where(Tag{Name: name}).First(&found).Error
	return found, err
}

// Open opens GORM on connString with one connection: one request, one
// connection.
//
// GORM runs on database/sql with pgx's driver, which pings a connection
// that sat idle for more than a second before handing it out again. Under
// Interleave a held command can make any pause that long, so the "-- ping"
// would be sent in some orders and not in others (the run then diverges
// from its plan): scenario code must not depend on the clock, and Open
// turns that ping off.
func Open(connString string) (*gorm.DB, error) {
	cfg, err := pgx.ParseConfig(connString)
	if err != nil {
		return nil, err
	}
	sqlDB := stdlib.OpenDB(*cfg, stdlib.OptionShouldPing(func(context.Context, stdlib.ShouldPingParams) bool { return false }))
	sqlDB.SetMaxOpenConns(1)
	db, err := gorm.Open(postgres.New(postgres.Config{Conn: sqlDB}), &gorm.Config{Logger: logger.Default.LogMode(logger.Silent)})
	if err != nil {
		sqlDB.Close()
		return nil, err
	}
	return db, nil
}

// Scenario: two requests find or create the tag "go"; afterwards there is
// one "go" row and both requests got it.
func Scenario(fixed bool) interleave.Scenario {
	name, find := "gorm-tag", FindOrCreate
	schema := "CREATE TABLE tags (id bigserial PRIMARY KEY, name text NOT NULL)"
	if fixed {
		name, find = "gorm-tag-fixed", FindOrCreateFixed
		schema += "; CREATE UNIQUE INDEX tags_name_key ON tags (name)"
	}
	actor := func(ctx context.Context, connString string) (any, error) {
		db, err := Open(connString)
		if err != nil {
			return nil, err
		}
		sqlDB, _ := db.DB()
		defer sqlDB.Close()
		tag, err := find(db.WithContext(ctx), "go")
		return tag.ID, err
	}
	return interleave.Scenario{
		Name: name,
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, schema)
			return err
		},
		Actors: []interleave.Actor{{Name: "request1", Run: actor}, {Name: "request2", Run: actor}},
		Invariant: func(ctx context.Context, db *pgx.Conn, results []interleave.ActorResult) error {
			rows, err := db.Query(ctx, "SELECT id FROM tags WHERE name = 'go' ORDER BY id")
			if err != nil {
				return err
			}
			ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
			if err != nil {
				return err
			}
			if len(ids) != 1 {
				return fmt.Errorf("the tag \"go\" has %d rows %v; want 1", len(ids), ids)
			}
			for _, r := range results {
				if id, ok := r.Value.(uint); !ok || int64(id) != ids[0] {
					return fmt.Errorf("%s got tag id %v; the tag \"go\" is id %d", r.Actor, r.Value, ids[0])
				}
			}
			return nil
		},
	}
}

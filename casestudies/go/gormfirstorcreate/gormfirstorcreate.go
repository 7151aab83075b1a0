// Package gormfirstorcreate is GORM issues #5803 ("FirstOrCreate is not
// thread safe") and #6253 ("FirstOrCreate is not atomic"): two requests
// call FirstOrCreate for the same tag; both SELECT and find nothing, both
// INSERT, and the second INSERT fails on the unique index (23505). The
// replies (by a631807682) say that composite APIs are not atomic, and
// #5803's points to OnConflict. The safe variant, at the same release, is
// Create with clause.OnConflict{DoNothing: true} followed by First: the
// INSERT itself decides, and the loser reads the winner's row.
package gormfirstorcreate

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	gostudies "github.com/pginterleave/interleave/casestudies/go"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/logger"
)

// Tag is the model: a name that must be unique.
type Tag struct {
	ID   int64
	Name string
}

// tagName is the tag both requests ask for.
const tagName = "interleave"

// Study is the record of docs/case-studies.md.
var Study = &gostudies.Study{
	Name:   "gorm-first-or-create",
	Module: "gorm.io/gorm v1.31.1, gorm.io/driver/postgres v1.6.0",
	Upstream: []string{
		"https://github.com/go-gorm/gorm/issues/5803: \"FirstOrCreate is not thread safe\": concurrent calls for the same object fail with a unique constraint error; the reply (a631807682) says the operation is not atomic and points to OnConflict",
		"https://github.com/go-gorm/gorm/issues/6253: \"FirstOrCreate is not atomic\" (playground PR go-gorm/playground#590): the same; \"All composite APIs are not atomic\"",
	},
	Racy:  gostudies.Variant{Label: "Where(...).FirstOrCreate", Scenario: scenario("gorm-first-or-create-racy", firstOrCreate)},
	Fixed: gostudies.Variant{Label: "Clauses(OnConflict{DoNothing}).Create, then First", Scenario: scenario("gorm-first-or-create-fixed", createThenFirst)},
	// The default options: each request calls GORM one statement after
	// another, so database/sql reuses its one idle connection and the
	// actor is one sequence of commands (the single-producer profile, which
	// the scheduler checks). That lets the search skip orders that differ
	// only by swapping independent commands (Search.Reduction's default),
	// and the fixed variant's search ends with every order explored.
}

func scenario(name string, get func(db *gorm.DB) (Tag, error)) interleave.Scenario {
	request := func(ctx context.Context, connString string) (any, error) {
		db, err := gorm.Open(postgres.Open(connString), &gorm.Config{Logger: logger.Discard})
		if err != nil {
			return nil, err
		}
		sqlDB, err := db.DB()
		if err != nil {
			return nil, err
		}
		defer sqlDB.Close()
		tag, err := get(db.WithContext(ctx))
		if err != nil {
			// The outcome is for the invariant to judge.
			return err.Error(), nil
		}
		return tag.ID, nil
	}
	return interleave.Scenario{
		Name: name,
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, `CREATE TABLE tags (id bigserial PRIMARY KEY, name text NOT NULL UNIQUE)`)
			return err
		},
		Actors:    []interleave.Actor{{Name: "alice", Run: request}, {Name: "bob", Run: request}},
		Invariant: invariant,
	}
}

// firstOrCreate is the documented way: find the tag or create it.
func firstOrCreate(db *gorm.DB) (Tag, error) {
	var tag Tag
	err := db.Where(Tag{Name: tagName}).FirstOrCreate(&tag).Error
	return tag, err
}

// createThenFirst inserts unless the name exists, then reads the row.
func createThenFirst(db *gorm.DB) (Tag, error) {
	if err := db.Clauses(clause.OnConflict{DoNothing: true}).Create(&Tag{Name: tagName}).Error; err != nil {
		return Tag{}, err
	}
	var tag Tag
	err := db.Where(Tag{Name: tagName}).First(&tag).Error
	return tag, err
}

// invariant: both requests succeed, there is one tag, and both got its id.
func invariant(ctx context.Context, db *pgx.Conn, results []interleave.ActorResult) error {
	var errs []error
	var id int64
	if err := db.QueryRow(ctx, "SELECT id FROM tags WHERE name = $1", tagName).Scan(&id); err != nil {
		return fmt.Errorf("reading the tag: %w", err)
	}
	for _, r := range results {
		if r.Err != nil {
			return fmt.Errorf("%s: %w", r.Actor, r.Err)
		}
		switch v := r.Value.(type) {
		case int64:
			if v != id {
				errs = append(errs, fmt.Errorf("%s got tag id %d, the tag's id is %d", r.Actor, v, id))
			}
		default:
			errs = append(errs, fmt.Errorf("%s: the request failed: %v", r.Actor, v))
		}
	}
	return errors.Join(errs...)
}

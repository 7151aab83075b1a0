package gorm

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/examples/drivers/drivertest"
	"gorm.io/gorm"
)

// event is one row GORM creates.
type event struct{ ID int64 }

// oneCreate is one db.Create of an event through GORM (Open: pgx's stdlib
// under database/sql), with no retry in the application, beside a reader:
// whatever retry happens is database/sql's. skipTx turns GORM's default
// transaction off (gorm.Config.SkipDefaultTransaction, as a Session).
func oneCreate(skipTx bool) interleave.Scenario {
	return interleave.Scenario{
		Name: fmt.Sprintf("gorm-one-create-skip-tx-%v", skipTx),
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, "CREATE TABLE events (id bigserial PRIMARY KEY)")
			return err
		},
		Actors: []interleave.Actor{
			{Name: "writer", Run: func(ctx context.Context, cs string) (any, error) {
				db, err := Open(cs)
				if err != nil {
					return nil, err
				}
				if sqlDB, err := db.DB(); err == nil {
					defer sqlDB.Close()
				}
				return nil, db.Session(&gorm.Session{SkipDefaultTransaction: skipTx}).WithContext(ctx).Create(&event{}).Error
			}},
			{Name: "reader", Run: drivertest.CountRows("events")},
		},
		// A failed Create is the caller's to handle; one that ran twice is
		// not.
		HandleActorErrors: true,
		Invariant:         drivertest.RanAtMostOnce("events", "Create"),
	}
}

// In GORM's default transaction (BEGIN, INSERT ... RETURNING, COMMIT),
// database/sql retries nothing inside the Tx: with every fault at every
// command, the Create runs at most once (a lost COMMIT reply is an error
// to the caller, whose own retry would be the bug examples/payment shows).
func TestGormCreateInItsTransactionIsNotRetried(t *testing.T) {
	drivertest.SurvivesEveryFault(t, oneCreate(false), interleave.Options{})
}

// With SkipDefaultTransaction the INSERT is an autocommit statement. GORM
// sends it with RETURNING "id" through database/sql's QueryContext, and
// there pgx's stdlib driver did not have it run again after a lost reply:
// the Create runs at most once with every fault at every command. (An
// ExecContext of the same kind of INSERT did run twice:
// examples/drivers/libpq's TestPgxStdlibRetriesAfterALostReply.)
func TestGormCreateWithoutTransactionIsNotRetried(t *testing.T) {
	drivertest.SurvivesEveryFault(t, oneCreate(true), interleave.Options{})
}

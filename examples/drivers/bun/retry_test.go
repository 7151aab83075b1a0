package bun

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/examples/drivers/drivertest"
)

// oneInsert is one autocommit INSERT through bun on its own driver,
// pgdriver (Open), with no retry in the application, beside a reader:
// whatever retry happens is database/sql's, on pgdriver's driver.ErrBadConn.
func oneInsert() interleave.Scenario {
	return interleave.Scenario{
		Name: "bun-one-insert",
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, "CREATE TABLE events (id serial PRIMARY KEY)")
			return err
		},
		Actors: []interleave.Actor{
			{Name: "writer", Run: func(ctx context.Context, cs string) (any, error) {
				db := Open(cs)
				defer db.Close()
				_, err := db.NewRaw("INSERT INTO events DEFAULT VALUES").Exec(ctx)
				return nil, err
			}},
			{Name: "reader", Run: func(ctx context.Context, cs string) (any, error) {
				db := Open(cs)
				defer db.Close()
				var n int
				err := db.NewRaw("SELECT count(*) FROM events").Scan(ctx, &n)
				return n, err
			}},
		},
		HandleActorErrors: true,
		Invariant:         drivertest.RanAtMostOnce("events", "INSERT"),
	}
}

// pgdriver returns driver.ErrBadConn only when nothing was written (or the
// connection was already closed), so database/sql does not run a sent
// INSERT again: with every fault at every command, the INSERT runs at most
// once, and a lost reply is an error to the caller.
func TestBunInsertIsNotRetriedAfterAFault(t *testing.T) {
	drivertest.SurvivesEveryFault(t, oneInsert(), interleave.Options{})
}

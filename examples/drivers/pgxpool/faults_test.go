package pgxpool

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/examples/drivers/drivertest"
)

// A pool under faults: a request books a seat with a key of its own
// through pgxpool (two connections at most), retrying the whole
// transaction on anything that is not an answer from PostgreSQL, beside a
// client that books without a pool. The
// booking is idempotent (INSERT ... ON CONFLICT DO NOTHING on the request's
// key), so every fault at every command of every order must pass, and the
// pool's reconnections must not make the run diverge from its plan.
func TestPoolRetryingAnIdempotentBookingSurvivesEveryFault(t *testing.T) {
	request := func(key string) func(ctx context.Context, cs string) (any, error) {
		return func(ctx context.Context, cs string) (any, error) {
			cfg, err := pgxpool.ParseConfig(cs)
			if err != nil {
				return nil, err
			}
			cfg.MaxConns = 2
			cfg.ShouldPing = func(context.Context, pgxpool.ShouldPingParams) bool { return false }
			pool, err := pgxpool.NewWithConfig(ctx, cfg)
			if err != nil {
				return nil, err
			}
			defer pool.Close()
			for try := 1; ; try++ {
				err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
					_, err := tx.Exec(ctx, "INSERT INTO bookings (key) VALUES ($1) ON CONFLICT (key) DO NOTHING", key)
					return err
				})
				var pgErr *pgconn.PgError
				if err == nil || (errors.As(err, &pgErr) && pgErr.Code != "57P01") || try == 3 {
					return try, err
				}
			}
		}
	}
	sc := interleave.Scenario{
		Name: "pool-idempotent-booking",
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, "CREATE TABLE bookings (key text PRIMARY KEY)")
			return err
		},
		Actors: []interleave.Actor{
			{Name: "request1", Run: request("a")},
			// A second client books without a pool, in one statement.
			{Name: "request2", Run: func(ctx context.Context, cs string) (any, error) {
				conn, err := pgx.Connect(ctx, cs)
				if err != nil {
					return nil, err
				}
				defer conn.Close(ctx)
				_, err = conn.Exec(ctx, "INSERT INTO bookings (key) VALUES ('b') ON CONFLICT (key) DO NOTHING")
				return nil, err
			}},
		},
		// request2 does not retry: a fault can leave its booking out.
		HandleActorErrors: true,
		Invariant: func(ctx context.Context, db *pgx.Conn, results []interleave.ActorResult) error {
			want := 2
			if results[1].Err != nil {
				want = 1
			}
			var n int
			if err := db.QueryRow(ctx, "SELECT count(*) FROM bookings").Scan(&n); err != nil {
				return err
			}
			if n != want && !(want == 1 && n == 2) {
				return fmt.Errorf("%d bookings; want %d", n, want)
			}
			return nil
		},
	}
	drivertest.SurvivesEveryFault(t, sc, pooled)
}

// Package stdlib is the database/sql example, with pgx's stdlib driver: a
// one-time coupon redeemed twice. Each actor checks that the coupon is
// unused, then marks it used and records the order's discount. The repair
// makes the check part of the write: UPDATE ... WHERE NOT redeemed, and
// only a request whose UPDATE changed a row gets the discount.
package stdlib

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pginterleave/interleave"
)

// Redeem is the application code: check, then write.
func Redeem(ctx context.Context, db *sql.DB, code string) (bool, error) {
	var redeemed bool
	if err := db.QueryRowContext(ctx, "SELECT redeemed FROM coupons WHERE code = $1", code).Scan(&redeemed); err != nil {
		return false, err
	}
	if redeemed {
		return false, nil
	}
	if _, err := db.ExecContext(ctx, "UPDATE coupons SET redeemed = true WHERE code = $1", code); err != nil {
		return false, err
	}
	_, err := db.ExecContext(ctx, "INSERT INTO discounts (code) VALUES ($1)", code)
	return err == nil, err
}

// RedeemFixed checks and writes in one statement.
func RedeemFixed(ctx context.Context, db *sql.DB, code string) (bool, error) {
	res, err := db.ExecContext(ctx, "UPDATE coupons SET redeemed = true WHERE code = $1 AND NOT redeemed", code)
	if err != nil {
		return false, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	_, err = db.ExecContext(ctx, "INSERT INTO discounts (code) VALUES ($1)", code)
	return err == nil, err
}

// openDB opens database/sql with pgx's driver.
//
// database/sql on pgx pings a connection that sat idle for more than a
// second before handing it out again. Under Interleave a held command can
// make any pause that long, so the "-- ping" would be sent in some orders
// and not in others (the run then diverges from its plan): scenario code
// must not depend on the clock, and this one turns the ping off.
func openDB(connString string) (*sql.DB, error) {
	cfg, err := pgx.ParseConfig(connString)
	if err != nil {
		return nil, err
	}
	return stdlib.OpenDB(*cfg, stdlib.OptionShouldPing(func(context.Context, stdlib.ShouldPingParams) bool { return false })), nil
}

// Scenario: two requests redeem the same coupon; at most one discount.
func Scenario(fixed bool) interleave.Scenario {
	redeem := Redeem
	name := "stdlib-coupon"
	if fixed {
		redeem, name = RedeemFixed, "stdlib-coupon-fixed"
	}
	actor := func(ctx context.Context, connString string) (any, error) {
		db, err := openDB(connString)
		if err != nil {
			return nil, err
		}
		defer db.Close()
		db.SetMaxOpenConns(1) // one request, one connection
		return redeem(ctx, db, "WELCOME")
	}
	return interleave.Scenario{
		Name: name,
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, `CREATE TABLE coupons (code text PRIMARY KEY, redeemed bool NOT NULL DEFAULT false);
				CREATE TABLE discounts (id serial PRIMARY KEY, code text NOT NULL REFERENCES coupons);
				INSERT INTO coupons (code) VALUES ('WELCOME')`)
			return err
		},
		Actors: []interleave.Actor{{Name: "request1", Run: actor}, {Name: "request2", Run: actor}},
		Invariant: func(ctx context.Context, db *pgx.Conn, _ []interleave.ActorResult) error {
			var n int
			if err := db.QueryRow(ctx, "SELECT count(*) FROM discounts").Scan(&n); err != nil {
				return err
			}
			if n > 1 {
				return fmt.Errorf("the one-time coupon was redeemed %d times", n)
			}
			return nil
		},
	}
}

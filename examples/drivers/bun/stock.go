// Package bun is the bun example (github.com/uptrace/bun v1.3.0 with
// pgdialect v1.3.0 and its own driver, pgdriver v1.2.18, through
// database/sql): two orders for the same product, each reading the stock and
// writing back what is left.
//
// The race: Buy reads the product with NewSelect ... Scan, checks that
// enough is left, writes qty - n back with NewUpdate ... Set and records the
// order. When both requests read before either writes, the second UPDATE
// overwrites the first: both orders are recorded, but the stock only went
// down by one of them (a lost update).
//
// The repair runs the same code in db.RunInTx and reads with
// .For("UPDATE"): the row lock makes the second request's SELECT wait until
// the first commits, and PostgreSQL then returns the row as the first left
// it, so the second request subtracts from the new quantity (or finds too
// little left and buys nothing).
package bun

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"
)

// Product is a stocked item.
type Product struct {
	bun.BaseModel `bun:"table:products"`
	ID            int64 `bun:",pk"`
	Name          string
	Qty           int
}

// Order is a sale of Qty units of a product.
type Order struct {
	bun.BaseModel `bun:"table:orders"`
	ID            int64 `bun:",pk,autoincrement"`
	ProductID     int64
	Qty           int
}

// Stock is the product both requests buy and how many are in stock.
const (
	productID = 1
	stock     = 10
)

// Buy is the application code: read the stock, check it, write it back.
// It reports whether the order was placed.
func Buy(ctx context.Context, db bun.IDB, id int64, n int) (bool, error) {
	var p Product
	if err := db.NewSelect().Model(&p).Where("id = ?", id).Scan(ctx); err != nil {
		return false, err
	}
	if p.Qty < n {
		return false, nil
	}
	if _, err := db.NewUpdate().Model(&p).Set("qty = ?", p.Qty-n).WherePK().Exec(ctx); err != nil {
		return false, err
	}
	if _, err := db.NewInsert().Model(&Order{ProductID: id, Qty: n}).Exec(ctx); err != nil {
		return false, err
	}
	return true, nil
}

// BuyFixed is Buy in a transaction whose read locks the product row.
func BuyFixed(ctx context.Context, db *bun.DB, id int64, n int) (placed bool, err error) {
	err = db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var p Product
		if err := tx.NewSelect().Model(&p).Where("id = ?", id).For("UPDATE").Scan(ctx); err != nil {
			return err
		}
		if p.Qty < n {
			return nil
		}
		if _, err := tx.NewUpdate().Model(&p).Set("qty = ?", p.Qty-n).WherePK().Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.NewInsert().Model(&Order{ProductID: id, Qty: n}).Exec(ctx); err != nil {
			return err
		}
		placed = true
		return nil
	})
	return placed, err
}

// Open opens bun on pgdriver with one connection: one request, one
// connection.
func Open(connString string) *bun.DB {
	sqldb := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(connString)))
	sqldb.SetMaxOpenConns(1)
	return bun.NewDB(sqldb, pgdialect.New())
}

// Scenario: alice buys 3 and bob buys 4 of the 10 in stock; the stock must
// go down by exactly what the recorded orders sold.
func Scenario(fixed bool) interleave.Scenario {
	name := "bun-stock"
	if fixed {
		name = "bun-stock-fixed"
	}
	actor := func(n int) func(context.Context, string) (any, error) {
		return func(ctx context.Context, connString string) (any, error) {
			db := Open(connString)
			defer db.Close()
			if fixed {
				return BuyFixed(ctx, db, productID, n)
			}
			return Buy(ctx, db, productID, n)
		}
	}
	return interleave.Scenario{
		Name: name,
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, fmt.Sprintf(`CREATE TABLE products (id bigint PRIMARY KEY, name text NOT NULL, qty int NOT NULL);
				CREATE TABLE orders (id bigserial PRIMARY KEY, product_id bigint NOT NULL REFERENCES products, qty int NOT NULL);
				INSERT INTO products VALUES (%d, 'widget', %d)`, productID, stock))
			return err
		},
		Actors: []interleave.Actor{{Name: "alice", Run: actor(3)}, {Name: "bob", Run: actor(4)}},
		Invariant: func(ctx context.Context, db *pgx.Conn, _ []interleave.ActorResult) error {
			var qty, sold int
			if err := db.QueryRow(ctx, "SELECT qty, (SELECT coalesce(sum(qty), 0) FROM orders WHERE product_id = $1) FROM products WHERE id = $1", productID).Scan(&qty, &sold); err != nil {
				return err
			}
			if qty+sold != stock {
				return fmt.Errorf("lost update: %d in stock after orders for %d; want %d", qty, sold, stock-sold)
			}
			return nil
		},
	}
}

// Package pgxbatch is the pgx.Batch example (conn.SendBatch): an oversold
// product. Each buyer sends one batch that reads the stock and the price,
// decides in Go whether the item is available, then sends a second batch
// that decrements the stock, inserts the order and reads the remaining
// stock. A batch is pipelined in one extended-protocol cycle (one Sync), so
// the proxy releases it as one unit: the race is between the batches, when
// both read batches run before either write batch. Then both buyers see one
// item in stock and both orders are written.
//
// The repair makes the write batch conditional: its first statement is a
// data-modifying CTE that decrements the stock only WHERE stock > 0 and
// inserts the order only from the row that UPDATE returned, so a buyer whose
// UPDATE matched nothing gets no order; the batch's second statement reads
// the remaining stock for the response.
package pgxbatch

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pginterleave/interleave"
)

// Order is what a buyer got.
type Order struct {
	Bought bool `json:"bought"`
	Price  int  `json:"price"`
	Left   int  `json:"left"` // stock after the write batch
}

// Buy is the application code: a read batch, a decision in Go, a write
// batch. With fixed set, the write batch is conditional.
func Buy(ctx context.Context, conn *pgx.Conn, product int, fixed bool) (Order, error) {
	var o Order
	var stock int
	read := &pgx.Batch{}
	read.Queue("SELECT stock FROM products WHERE id = $1", product).QueryRow(func(r pgx.Row) error { return r.Scan(&stock) })
	read.Queue("SELECT price FROM prices WHERE product_id = $1", product).QueryRow(func(r pgx.Row) error { return r.Scan(&o.Price) })
	if err := conn.SendBatch(ctx, read).Close(); err != nil {
		return o, err
	}
	if stock <= 0 {
		return o, nil // sold out
	}

	write := &pgx.Batch{}
	if fixed {
		write.Queue(`WITH sold AS (
				UPDATE products SET stock = stock - 1 WHERE id = $1 AND stock > 0 RETURNING id
			)
			INSERT INTO orders (product_id, price) SELECT id, $2 FROM sold`, product, o.Price).Exec(func(tag pgconn.CommandTag) error {
			o.Bought = tag.RowsAffected() == 1
			return nil
		})
	} else {
		write.Queue("UPDATE products SET stock = stock - 1 WHERE id = $1", product)
		write.Queue("INSERT INTO orders (product_id, price) VALUES ($1, $2)", product, o.Price).Exec(func(pgconn.CommandTag) error {
			o.Bought = true
			return nil
		})
	}
	write.Queue("SELECT stock FROM products WHERE id = $1", product).QueryRow(func(r pgx.Row) error { return r.Scan(&o.Left) })
	return o, conn.SendBatch(ctx, write).Close()
}

// Scenario: one item in stock, two buyers; at most one order.
func Scenario(fixed bool) interleave.Scenario {
	name := "pgxbatch-oversell"
	if fixed {
		name = "pgxbatch-oversell-fixed"
	}
	buyer := func(ctx context.Context, connString string) (any, error) {
		conn, err := pgx.Connect(ctx, connString)
		if err != nil {
			return nil, err
		}
		defer conn.Close(context.Background())
		return Buy(ctx, conn, 1, fixed)
	}
	return interleave.Scenario{
		Name: name,
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, `CREATE TABLE products (id int PRIMARY KEY, stock int NOT NULL);
				CREATE TABLE prices (product_id int PRIMARY KEY REFERENCES products, price int NOT NULL);
				CREATE TABLE orders (id serial PRIMARY KEY, product_id int NOT NULL REFERENCES products, price int NOT NULL);
				INSERT INTO products VALUES (1, 1);
				INSERT INTO prices VALUES (1, 25)`)
			return err
		},
		Actors: []interleave.Actor{{Name: "buyer1", Run: buyer}, {Name: "buyer2", Run: buyer}},
		Invariant: func(ctx context.Context, db *pgx.Conn, results []interleave.ActorResult) error {
			var orders, stock int
			if err := db.QueryRow(ctx, "SELECT (SELECT count(*) FROM orders), (SELECT stock FROM products WHERE id = 1)").Scan(&orders, &stock); err != nil {
				return err
			}
			bought := 0
			for _, r := range results {
				o, ok := r.Value.(Order)
				if !ok {
					return errors.New("a buyer returned no order")
				}
				if o.Bought {
					bought++
				}
			}
			if orders > 1 || stock < 0 || bought != orders {
				return fmt.Errorf("oversold: %d orders for 1 item in stock (stock is now %d; %d buyers were told they bought it)", orders, stock, bought)
			}
			return nil
		},
	}
}

package explain_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave/engine"
)

// The six scenarios of docs/explaining.md, one per kind of failure. Each
// actor connects through its proxy and runs plain pgx; nothing is mocked.

func connect(ctx context.Context, cs string, f func(*pgx.Conn) (any, error)) (any, error) {
	c, err := pgx.Connect(ctx, cs)
	if err != nil {
		return nil, err
	}
	defer c.Close(context.Background())
	return f(c)
}

func exec(ctx context.Context, db *pgx.Conn, sqls ...string) error {
	for _, s := range sqls {
		if _, err := db.Exec(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// inTx runs f in BEGIN ... COMMIT.
func inTx(ctx context.Context, c *pgx.Conn, f func() (any, error)) (any, error) {
	if _, err := c.Exec(ctx, "BEGIN"); err != nil {
		return nil, err
	}
	v, err := f()
	if err != nil {
		return nil, err
	}
	_, err = c.Exec(ctx, "COMMIT")
	return v, err
}

// lostUpdate: two withdrawals of 10 read the balance and write it back.
func lostUpdate() engine.Scenario {
	withdraw := func(ctx context.Context, cs string) (any, error) {
		return connect(ctx, cs, func(c *pgx.Conn) (any, error) {
			return inTx(ctx, c, func() (any, error) {
				var b int
				if err := c.QueryRow(ctx, "SELECT balance FROM accounts WHERE id = $1", 1).Scan(&b); err != nil {
					return nil, err
				}
				_, err := c.Exec(ctx, "UPDATE accounts SET balance = $1 WHERE id = $2", b-10, 1)
				return nil, err
			})
		})
	}
	return engine.Scenario{
		Name: "lost-update",
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			return exec(ctx, db, "CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL)", "INSERT INTO accounts VALUES (1, 100)")
		},
		Actors: []engine.Actor{{Name: "alice", Run: withdraw}, {Name: "bob", Run: withdraw}},
		Invariant: func(ctx context.Context, db *pgx.Conn, _ []engine.ActorResult) error {
			var b int
			if err := db.QueryRow(ctx, "SELECT balance FROM accounts WHERE id = 1").Scan(&b); err != nil {
				return err
			}
			if b != 80 {
				return fmt.Errorf("balance is %d after two withdrawals of 10 from 100, want 80", b)
			}
			return nil
		},
	}
}

// writeSkew: two doctors each go off call if the other is still on call.
func writeSkew() engine.Scenario {
	offCall := func(name string) func(ctx context.Context, cs string) (any, error) {
		return func(ctx context.Context, cs string) (any, error) {
			return connect(ctx, cs, func(c *pgx.Conn) (any, error) {
				return inTx(ctx, c, func() (any, error) {
					var n int
					if err := c.QueryRow(ctx, "SELECT count(*) FROM doctors WHERE on_call").Scan(&n); err != nil {
						return nil, err
					}
					if n >= 2 {
						_, err := c.Exec(ctx, "UPDATE doctors SET on_call = false WHERE name = $1", name)
						return nil, err
					}
					return nil, nil
				})
			})
		}
	}
	return engine.Scenario{
		Name: "write-skew",
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			return exec(ctx, db, "CREATE TABLE doctors (name text PRIMARY KEY, on_call bool NOT NULL)", "INSERT INTO doctors VALUES ('alice', true), ('bob', true)")
		},
		Actors: []engine.Actor{{Name: "alice", Run: offCall("alice")}, {Name: "bob", Run: offCall("bob")}},
		Invariant: func(ctx context.Context, db *pgx.Conn, _ []engine.ActorResult) error {
			var n int
			if err := db.QueryRow(ctx, "SELECT count(*) FROM doctors WHERE on_call").Scan(&n); err != nil {
				return err
			}
			if n < 1 {
				return errors.New("no doctor is on call")
			}
			return nil
		},
	}
}

// readSkew: a transfer between two accounts while a report adds them up.
func readSkew() engine.Scenario {
	return engine.Scenario{
		Name: "read-skew",
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			return exec(ctx, db, "CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL)", "INSERT INTO accounts VALUES (1, 50), (2, 50)")
		},
		Actors: []engine.Actor{
			{Name: "report", Run: func(ctx context.Context, cs string) (any, error) {
				return connect(ctx, cs, func(c *pgx.Conn) (any, error) {
					return inTx(ctx, c, func() (any, error) {
						var a, b int
						if err := c.QueryRow(ctx, "SELECT balance FROM accounts WHERE id = 1").Scan(&a); err != nil {
							return nil, err
						}
						if err := c.QueryRow(ctx, "SELECT balance FROM accounts WHERE id = 2").Scan(&b); err != nil {
							return nil, err
						}
						return a + b, nil
					})
				})
			}},
			{Name: "transfer", Run: func(ctx context.Context, cs string) (any, error) {
				return connect(ctx, cs, func(c *pgx.Conn) (any, error) {
					return inTx(ctx, c, func() (any, error) {
						if _, err := c.Exec(ctx, "UPDATE accounts SET balance = balance - 10 WHERE id = 1"); err != nil {
							return nil, err
						}
						_, err := c.Exec(ctx, "UPDATE accounts SET balance = balance + 10 WHERE id = 2")
						return nil, err
					})
				})
			}},
		},
		Invariant: func(ctx context.Context, db *pgx.Conn, rs []engine.ActorResult) error {
			if s, ok := rs[0].Value.(int); ok && s != 100 {
				return fmt.Errorf("the report's total is %d; the accounts always hold 100", s)
			}
			return nil
		},
	}
}

// phantom: a report counts the orders and sums them while one is added.
func phantom() engine.Scenario {
	return engine.Scenario{
		Name: "phantom",
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			return exec(ctx, db, "CREATE TABLE orders (id serial PRIMARY KEY, customer int NOT NULL, amount int NOT NULL)", "INSERT INTO orders (customer, amount) VALUES (1, 10), (1, 10)")
		},
		Actors: []engine.Actor{
			{Name: "report", Run: func(ctx context.Context, cs string) (any, error) {
				return connect(ctx, cs, func(c *pgx.Conn) (any, error) {
					return inTx(ctx, c, func() (any, error) {
						var n, sum int
						if err := c.QueryRow(ctx, "SELECT count(*) FROM orders WHERE customer = 1").Scan(&n); err != nil {
							return nil, err
						}
						if err := c.QueryRow(ctx, "SELECT sum(amount) FROM orders WHERE customer = 1").Scan(&sum); err != nil {
							return nil, err
						}
						return []int{n, sum}, nil
					})
				})
			}},
			{Name: "shop", Run: func(ctx context.Context, cs string) (any, error) {
				return connect(ctx, cs, func(c *pgx.Conn) (any, error) {
					_, err := c.Exec(ctx, "INSERT INTO orders (customer, amount) VALUES (1, 10)")
					return nil, err
				})
			}},
		},
		Invariant: func(ctx context.Context, db *pgx.Conn, rs []engine.ActorResult) error {
			if v, ok := rs[0].Value.([]int); ok && v[1] != 10*v[0] {
				return fmt.Errorf("the report counted %d orders of 10 but summed %d", v[0], v[1])
			}
			return nil
		},
	}
}

// readOnly: Fekete, O'Neil and O'Neil's read-only transaction anomaly. A
// withdrawal of 10 from checking charges a penalty of 1 when checking and
// savings together do not cover it; a deposit of 20 goes to savings; a
// report reads both. If the report saw the deposit and not the
// withdrawal, the withdrawal came after the deposit and must not have
// charged the penalty.
func readOnly() engine.Scenario {
	return engine.Scenario{
		Name: "read-only",
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			return exec(ctx, db, "CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL)", "INSERT INTO accounts VALUES (1, 0), (2, 0)")
		},
		Actors: []engine.Actor{
			{Name: "withdraw", Run: func(ctx context.Context, cs string) (any, error) {
				return connect(ctx, cs, func(c *pgx.Conn) (any, error) {
					return inTx(ctx, c, func() (any, error) {
						var checking, savings int
						if err := c.QueryRow(ctx, "SELECT balance FROM accounts WHERE id = 1").Scan(&checking); err != nil {
							return nil, err
						}
						if err := c.QueryRow(ctx, "SELECT balance FROM accounts WHERE id = 2").Scan(&savings); err != nil {
							return nil, err
						}
						penalty := 0
						if checking+savings < 10 {
							penalty = 1
						}
						_, err := c.Exec(ctx, "UPDATE accounts SET balance = $1 WHERE id = 1", checking-10-penalty)
						return nil, err
					})
				})
			}},
			{Name: "deposit", Run: func(ctx context.Context, cs string) (any, error) {
				return connect(ctx, cs, func(c *pgx.Conn) (any, error) {
					_, err := c.Exec(ctx, "UPDATE accounts SET balance = balance + 20 WHERE id = 2")
					return nil, err
				})
			}},
			{Name: "report", Run: func(ctx context.Context, cs string) (any, error) {
				return connect(ctx, cs, func(c *pgx.Conn) (any, error) {
					return inTx(ctx, c, func() (any, error) {
						var checking, savings int
						if err := c.QueryRow(ctx, "SELECT balance FROM accounts WHERE id = 1").Scan(&checking); err != nil {
							return nil, err
						}
						if err := c.QueryRow(ctx, "SELECT balance FROM accounts WHERE id = 2").Scan(&savings); err != nil {
							return nil, err
						}
						return []int{checking, savings}, nil
					})
				})
			}},
		},
		Invariant: func(ctx context.Context, db *pgx.Conn, rs []engine.ActorResult) error {
			var checking int
			if err := db.QueryRow(ctx, "SELECT balance FROM accounts WHERE id = 1").Scan(&checking); err != nil {
				return err
			}
			if v, ok := rs[2].Value.([]int); ok && v[0] == 0 && v[1] == 20 && checking == -11 {
				return errors.New("the report saw the deposit before the withdrawal, yet the withdrawal charged the penalty (checking is -11)")
			}
			return nil
		},
	}
}

// checkThenInsert: two sign-ups check that an email is free, then insert
// it, each statement in its own transaction.
func checkThenInsert() engine.Scenario {
	signUp := func(ctx context.Context, cs string) (any, error) {
		return connect(ctx, cs, func(c *pgx.Conn) (any, error) {
			var n int
			if err := c.QueryRow(ctx, "SELECT count(*) FROM users WHERE email = $1", "ann@example.com").Scan(&n); err != nil {
				return nil, err
			}
			if n == 0 {
				_, err := c.Exec(ctx, "INSERT INTO users (email) VALUES ($1)", "ann@example.com")
				return nil, err
			}
			return nil, nil
		})
	}
	return engine.Scenario{
		Name: "check-then-insert",
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			return exec(ctx, db, "CREATE TABLE users (id serial PRIMARY KEY, email text NOT NULL)")
		},
		Actors: []engine.Actor{{Name: "alice", Run: signUp}, {Name: "bob", Run: signUp}},
		Invariant: func(ctx context.Context, db *pgx.Conn, _ []engine.ActorResult) error {
			var n int
			if err := db.QueryRow(ctx, "SELECT count(*) FROM users WHERE email = 'ann@example.com'").Scan(&n); err != nil {
				return err
			}
			if n > 1 {
				return fmt.Errorf("%d users have the email ann@example.com", n)
			}
			return nil
		},
	}
}

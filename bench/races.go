package bench

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/internal/testkit/fixture"
)

// Race is a known race pattern with its repair, for the bug-finding
// benchmark: the race must be found, the repair must never fail.
type Race struct {
	Name    string
	Story   string
	Bug     interleave.Scenario
	Fix     interleave.Scenario
	Overlap bool // needs two statements executing at once (overlap pairs)
}

type step func(ctx context.Context, c *pgx.Conn, st *state) error

// state carries values between an actor's steps.
type state struct{ n, m int }

// actor runs steps on one connection, each a separate statement (a unit).
func actor(steps ...step) func(ctx context.Context, cs string) (any, error) {
	return func(ctx context.Context, cs string) (any, error) {
		c, err := pgx.Connect(ctx, cs)
		if err != nil {
			return nil, err
		}
		defer c.Close(ctx)
		st := &state{}
		for _, s := range steps {
			if err := s(ctx, c, st); err != nil {
				return nil, err
			}
		}
		return st.n, nil
	}
}

func exec(sql string, args ...any) step {
	return func(ctx context.Context, c *pgx.Conn, _ *state) error {
		_, err := c.Exec(ctx, sql, args...)
		return err
	}
}

func setup(sql string) func(ctx context.Context, db *pgx.Conn) error {
	return func(ctx context.Context, db *pgx.Conn) error {
		_, err := db.Exec(ctx, sql)
		return err
	}
}

// expect runs a query returning one integer and compares it.
func expect(query string, want int, msg string) func(ctx context.Context, db *pgx.Conn, _ []interleave.ActorResult) error {
	return expectInt(query, func(got int) bool { return got == want }, msg)
}

// expectInt is an invariant that reads one integer with query and fails
// with msg (formatted with it) unless ok accepts it.
func expectInt(query string, ok func(int) bool, msg string) func(ctx context.Context, db *pgx.Conn, _ []interleave.ActorResult) error {
	return func(ctx context.Context, db *pgx.Conn, _ []interleave.ActorResult) error {
		var got int
		if err := db.QueryRow(ctx, query).Scan(&got); err != nil {
			return err
		}
		if !ok(got) {
			return fmt.Errorf(msg, got)
		}
		return nil
	}
}

func scenario(name, setupSQL string, inv func(context.Context, *pgx.Conn, []interleave.ActorResult) error, actors ...func(context.Context, string) (any, error)) interleave.Scenario {
	sc := interleave.Scenario{Name: name, Setup: setup(setupSQL), Invariant: inv}
	for i, a := range actors {
		sc.Actors = append(sc.Actors, interleave.Actor{Name: fmt.Sprintf("%s%d", strings.Split(name, "-")[0][:1], i+1), Run: a})
	}
	return sc
}

func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// Races is the suite.
func Races() []Race {
	var rs []Race

	// Lost update: read, add in Go, write back (the counter of
	// internal/testkit/fixture).
	counterInv := fixture.CounterIs(2)
	rs = append(rs, Race{Name: "lost-update", Story: "two increments read the counter, then write back n+1",
		Bug: scenario("lost-update", fixture.CounterSetup, counterInv, fixture.Increment(false), fixture.Increment(false)),
		Fix: scenario("lost-update-fixed", fixture.CounterSetup, counterInv, fixture.Increment(true), fixture.Increment(true))})

	// Write skew under REPEATABLE READ: two doctors go off call, each after
	// checking that another one stays on call.
	offCall := func(me string, lock bool) func(context.Context, string) (any, error) {
		q := "SELECT count(*) FROM doctors WHERE on_call"
		if lock {
			q = "SELECT count(*) FROM (SELECT 1 FROM doctors WHERE on_call FOR UPDATE) s"
		}
		return func(ctx context.Context, cs string) (any, error) {
			c, err := pgx.Connect(ctx, cs)
			if err != nil {
				return nil, err
			}
			defer c.Close(ctx)
			tx, err := c.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead})
			if err != nil {
				return nil, err
			}
			defer tx.Rollback(ctx)
			var n int
			if err := tx.QueryRow(ctx, q).Scan(&n); err != nil {
				return nil, err
			}
			if n >= 2 {
				if _, err := tx.Exec(ctx, "UPDATE doctors SET on_call = false WHERE name = $1", me); err != nil {
					return nil, err
				}
			}
			return nil, tx.Commit(ctx)
		}
	}
	doctorsSQL := "CREATE TABLE doctors (name text PRIMARY KEY, on_call bool NOT NULL); INSERT INTO doctors VALUES ('alice', true), ('bob', true)"
	onCallInv := func(ctx context.Context, db *pgx.Conn, rs []interleave.ActorResult) error {
		for _, r := range rs {
			if r.Err != nil && sqlState(r.Err) != "40001" {
				return fmt.Errorf("%s: %w", r.Actor, r.Err)
			}
		}
		return expect("SELECT least(count(*), 1) FROM doctors WHERE on_call", 1, "nobody is on call (%d)")(ctx, db, nil)
	}
	ws := Race{Name: "write-skew", Story: "REPEATABLE READ: each doctor checks that two are on call, then goes off call",
		Bug: scenario("write-skew", doctorsSQL, onCallInv, offCall("alice", false), offCall("bob", false)),
		Fix: scenario("write-skew-fixed", doctorsSQL, onCallInv, offCall("alice", true), offCall("bob", true))}
	ws.Bug.HandleActorErrors, ws.Fix.HandleActorErrors = true, true
	rs = append(rs, ws)

	// Check-then-insert duplicates.
	register := func(fixed bool) func(context.Context, string) (any, error) {
		insert := "INSERT INTO users (name) VALUES ('alice')"
		if fixed {
			insert = "INSERT INTO users (name) VALUES ('alice') ON CONFLICT (name) DO NOTHING"
		}
		return actor(
			func(ctx context.Context, c *pgx.Conn, st *state) error {
				return c.QueryRow(ctx, "SELECT count(*) FROM users WHERE name = 'alice'").Scan(&st.n)
			},
			func(ctx context.Context, c *pgx.Conn, st *state) error {
				if st.n > 0 {
					return nil
				}
				_, err := c.Exec(ctx, insert)
				return err
			})
	}
	usersInv := expect("SELECT count(*) FROM users WHERE name = 'alice'", 1, "%d users named alice")
	rs = append(rs, Race{Name: "check-then-insert", Story: "two sign-ups check the name is free, then insert",
		Bug: scenario("check-then-insert", "CREATE TABLE users (name text NOT NULL)", usersInv, register(false), register(false)),
		Fix: scenario("check-then-insert-fixed", "CREATE TABLE users (name text NOT NULL UNIQUE)", usersInv, register(true), register(true))})

	// Double-claimed job: no SKIP LOCKED.
	claim := func(me string, fixed bool) func(context.Context, string) (any, error) {
		pick := "SELECT id FROM jobs WHERE owner IS NULL ORDER BY id LIMIT 1"
		if fixed {
			pick += " FOR UPDATE SKIP LOCKED"
		}
		return func(ctx context.Context, cs string) (any, error) {
			c, err := pgx.Connect(ctx, cs)
			if err != nil {
				return nil, err
			}
			defer c.Close(ctx)
			tx, err := c.Begin(ctx)
			if err != nil {
				return nil, err
			}
			defer tx.Rollback(ctx)
			var id int
			if err := tx.QueryRow(ctx, pick).Scan(&id); err != nil {
				return nil, err
			}
			if _, err := tx.Exec(ctx, "INSERT INTO claims (job, worker) VALUES ($1, $2)", id, me); err != nil {
				return nil, err
			}
			if _, err := tx.Exec(ctx, "UPDATE jobs SET owner = $1 WHERE id = $2", me, id); err != nil {
				return nil, err
			}
			return id, tx.Commit(ctx)
		}
	}
	jobsSQL := "CREATE TABLE jobs (id int PRIMARY KEY, owner text); INSERT INTO jobs VALUES (1, NULL), (2, NULL); CREATE TABLE claims (job int, worker text)"
	jobsInv := expect("SELECT count(*) FROM (SELECT job FROM claims GROUP BY job HAVING count(*) > 1) d", 0, "%d jobs claimed by two workers")
	rs = append(rs, Race{Name: "double-claim", Story: "two workers take the oldest unowned job without SKIP LOCKED",
		Bug: scenario("double-claim", jobsSQL, jobsInv, claim("w1", false), claim("w2", false)),
		Fix: scenario("double-claim-fixed", jobsSQL, jobsInv, claim("w1", true), claim("w2", true))})

	// Oversell.
	buy := func(fixed bool) func(context.Context, string) (any, error) {
		return actor(
			func(ctx context.Context, c *pgx.Conn, st *state) error {
				return c.QueryRow(ctx, "SELECT stock FROM items WHERE id = 1").Scan(&st.n)
			},
			func(ctx context.Context, c *pgx.Conn, st *state) error {
				if st.n <= 0 {
					return nil
				}
				if fixed {
					tag, err := c.Exec(ctx, "UPDATE items SET stock = stock - 1 WHERE id = 1 AND stock > 0")
					st.m = int(tag.RowsAffected())
					return err
				}
				st.m = 1
				_, err := c.Exec(ctx, "UPDATE items SET stock = $1 WHERE id = 1", st.n-1)
				return err
			},
			func(ctx context.Context, c *pgx.Conn, st *state) error {
				if st.m == 0 {
					return nil
				}
				_, err := c.Exec(ctx, "INSERT INTO orders (item) VALUES (1)")
				return err
			})
	}
	itemsSQL := "CREATE TABLE items (id int PRIMARY KEY, stock int NOT NULL); INSERT INTO items VALUES (1, 1); CREATE TABLE orders (item int)"
	itemsInv := expect("SELECT (SELECT count(*) FROM orders) + (SELECT stock FROM items)", 1, "oversold: orders + stock = %d, want 1")
	rs = append(rs, Race{Name: "oversell", Story: "two buyers check the last item's stock, then buy",
		Bug: scenario("oversell", itemsSQL, itemsInv, buy(false), buy(false)),
		Fix: scenario("oversell-fixed", itemsSQL, itemsInv, buy(true), buy(true))})

	// Deadlock from opposite lock order.
	transfer := func(from, to int, ordered bool) func(context.Context, string) (any, error) {
		first, second := from, to
		if ordered && first > second {
			first, second = second, first
		}
		return func(ctx context.Context, cs string) (any, error) {
			c, err := pgx.Connect(ctx, cs)
			if err != nil {
				return nil, err
			}
			defer c.Close(ctx)
			tx, err := c.Begin(ctx)
			if err != nil {
				return nil, err
			}
			defer tx.Rollback(ctx)
			for _, id := range []int{first, second} {
				delta := 10
				if id == from {
					delta = -10
				}
				if _, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance + $1 WHERE id = $2", delta, id); err != nil {
					return nil, err
				}
			}
			return nil, tx.Commit(ctx)
		}
	}
	accountsSQL := "CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL); INSERT INTO accounts VALUES (1, 100), (2, 100)"
	noErrors := func(ctx context.Context, db *pgx.Conn, rs []interleave.ActorResult) error {
		for _, r := range rs {
			if r.Err != nil {
				return fmt.Errorf("%s: %w", r.Actor, r.Err)
			}
		}
		return expect("SELECT sum(balance) FROM accounts", 200, "money created or lost: total %d")(ctx, db, nil)
	}
	dl := Race{Name: "deadlock", Story: "two transfers lock the same two accounts in opposite order",
		Bug: scenario("deadlock", accountsSQL, noErrors, transfer(1, 2, false), transfer(2, 1, false)),
		Fix: scenario("deadlock-fixed", accountsSQL, noErrors, transfer(1, 2, true), transfer(2, 1, true))}
	dl.Bug.HandleActorErrors, dl.Fix.HandleActorErrors = true, true
	rs = append(rs, dl)

	// Three actors, two choices: a stale cache fill. The writer updates the
	// price, then invalidates the cache; a reader reads the price, then
	// fills the cache with what it read; a bystander records a page view.
	// The cache ends stale only when the reader reads before the update and
	// fills after the invalidation: two deviations from the default order.
	writer := actor(exec("UPDATE items SET price = 20 WHERE id = 1"), exec("DELETE FROM cache WHERE key = 'price'"))
	fill := func(fixed bool) func(context.Context, string) (any, error) {
		return actor(
			func(ctx context.Context, c *pgx.Conn, st *state) error {
				return c.QueryRow(ctx, "SELECT price FROM items WHERE id = 1").Scan(&st.n)
			},
			func(ctx context.Context, c *pgx.Conn, st *state) error {
				if fixed {
					_, err := c.Exec(ctx, "INSERT INTO cache SELECT 'price', price FROM items WHERE id = 1 ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value")
					return err
				}
				_, err := c.Exec(ctx, "INSERT INTO cache VALUES ('price', $1) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value", st.n)
				return err
			})
	}
	bystander := actor(exec("SELECT count(*) FROM items"), exec("INSERT INTO views DEFAULT VALUES"))
	cacheSQL := "CREATE TABLE items (id int PRIMARY KEY, price int NOT NULL); INSERT INTO items VALUES (1, 10); CREATE TABLE cache (key text PRIMARY KEY, value int NOT NULL); CREATE TABLE views (id serial)"
	cacheInv := expect("SELECT count(*) FROM cache c JOIN items i ON c.key = 'price' AND i.id = 1 WHERE c.value <> i.price", 0, "the cache holds a stale price (%d stale entries)")
	rs = append(rs, Race{Name: "stale-cache-3-actors", Story: "writer updates then invalidates; reader reads then fills the cache; a third actor runs alongside (needs 2 choices)",
		Bug: scenario("stale-cache", cacheSQL, cacheInv, writer, fill(false), bystander),
		Fix: scenario("stale-cache-fixed", cacheSQL, cacheInv, writer, fill(true), bystander)})

	// The race inside one statement: INSERT ... WHERE NOT EXISTS.
	// The slow variant does 50 ms of work after its snapshot (the race as
	// the benchmark measured it before pairs had a barrier), the plain one
	// none: a real statement does not sleep.
	lockRow := func(fixed, slow bool) func(context.Context, string) (any, error) {
		q := "INSERT INTO locks (name) SELECT 'migration' WHERE NOT EXISTS (SELECT 1 FROM locks WHERE name = 'migration')"
		if slow {
			q = "INSERT INTO locks (name) SELECT 'migration' FROM (SELECT pg_sleep(0.05)) AS work WHERE NOT EXISTS (SELECT 1 FROM locks WHERE name = 'migration')"
		}
		if fixed {
			q = "INSERT INTO locks (name) VALUES ('migration') ON CONFLICT (name) DO NOTHING"
		}
		return actor(exec(q))
	}
	// Three customers increment one counter: read it, add one in Go, write
	// it back; the repair locks the row FOR UPDATE inside a transaction.
	counter3 := func(fixed bool) func(context.Context, string) (any, error) {
		read := "SELECT n FROM counter WHERE id = 1"
		if fixed {
			read += " FOR UPDATE"
		}
		return actor(exec("BEGIN"),
			func(ctx context.Context, c *pgx.Conn, st *state) error { return c.QueryRow(ctx, read).Scan(&st.n) },
			func(ctx context.Context, c *pgx.Conn, st *state) error {
				_, err := c.Exec(ctx, "UPDATE counter SET n = $1 WHERE id = 1", st.n+1)
				return err
			},
			exec("COMMIT"))
	}
	counterSQL := fixture.CounterSetup
	counter3Inv := expect("SELECT n FROM counter WHERE id = 1", 3, "three increments, counter is %d")
	rs = append(rs, Race{Name: "counter-3-actors", Story: "three customers read the counter in a transaction, add one, write back; the repair reads it FOR UPDATE",
		Bug: scenario("counter-3", counterSQL, counter3Inv, counter3(false), counter3(false), counter3(false)),
		Fix: scenario("counter-3-fixed", counterSQL, counter3Inv, counter3(true), counter3(true), counter3(true))})

	// A checkout handler, three customers, one item left: read the own
	// cart, read the stock (the repair locks it FOR UPDATE), insert the
	// order, decrement the stock, insert an audit row, commit.
	checkout := func(customer string, fixed bool) func(context.Context, string) (any, error) {
		stock := "SELECT stock FROM products WHERE id = 1"
		if fixed {
			stock += " FOR UPDATE"
		}
		return actor(exec("BEGIN"),
			exec("SELECT items FROM carts WHERE customer = $1", customer),
			func(ctx context.Context, c *pgx.Conn, st *state) error { return c.QueryRow(ctx, stock).Scan(&st.n) },
			func(ctx context.Context, c *pgx.Conn, st *state) error {
				if st.n <= 0 {
					return nil // sold out: no order
				}
				_, err := c.Exec(ctx, "INSERT INTO orders (customer, product) VALUES ($1, 1)", customer)
				return err
			},
			func(ctx context.Context, c *pgx.Conn, st *state) error {
				if st.n <= 0 {
					return nil
				}
				_, err := c.Exec(ctx, "UPDATE products SET stock = $1 WHERE id = 1", st.n-1)
				return err
			},
			exec("INSERT INTO audit (what) VALUES ($1)", customer+" checked out"),
			exec("COMMIT"))
	}
	shopSQL := `CREATE TABLE products (id int PRIMARY KEY, stock int NOT NULL);
		CREATE TABLE carts (customer text PRIMARY KEY, items int);
		CREATE TABLE orders (id serial PRIMARY KEY, customer text, product int REFERENCES products);
		CREATE TABLE audit (id serial PRIMARY KEY, what text);
		INSERT INTO products VALUES (1, 1); INSERT INTO carts VALUES ('ann', 1), ('bo', 1), ('cy', 1)`
	shopInv := expect("SELECT (SELECT count(*) FROM orders) + (SELECT stock FROM products WHERE id = 1)", 1, "oversold: orders + stock = %d, want 1")
	rs = append(rs, Race{Name: "checkout-3-customers", Story: "three customers check out the last item; the repair locks the product row FOR UPDATE",
		Bug: scenario("checkout-3", shopSQL, shopInv, checkout("ann", false), checkout("bo", false), checkout("cy", false)),
		Fix: scenario("checkout-3-fixed", shopSQL, shopInv, checkout("ann", true), checkout("bo", true), checkout("cy", true))})

	lockInv := expect("SELECT count(*) FROM locks WHERE name = 'migration'", 1, "%d migration lock rows, want 1")
	rs = append(rs, Race{Name: "insert-where-not-exists-slow", Story: "one statement each: INSERT ... SELECT ... WHERE NOT EXISTS, 50 ms of work after the snapshot (needs overlap pairs)", Overlap: true,
		Bug: scenario("insert-where-not-exists-slow", "CREATE TABLE locks (name text NOT NULL)", lockInv, lockRow(false, true), lockRow(false, true)),
		Fix: scenario("insert-where-not-exists-slow-fixed", "CREATE TABLE locks (name text NOT NULL UNIQUE)", lockInv, lockRow(true, true), lockRow(true, true))})
	rs = append(rs, Race{Name: "insert-where-not-exists", Story: "one statement each: INSERT ... SELECT ... WHERE NOT EXISTS, no sleep (needs overlap pairs)", Overlap: true,
		Bug: scenario("insert-where-not-exists", "CREATE TABLE locks (name text NOT NULL)", lockInv, lockRow(false, false), lockRow(false, false)),
		Fix: scenario("insert-where-not-exists-fixed", "CREATE TABLE locks (name text NOT NULL UNIQUE)", lockInv, lockRow(true, false), lockRow(true, false))})
	return rs
}

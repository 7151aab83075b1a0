package bench

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
)

// ThreeActorRepairs are the four kinds of correct three-actor code of
// issue 21, each beside the bug it repairs: the read-only serialization
// anomaly, queue workers with SKIP LOCKED and a foreign key, a DEFERRABLE
// report beside two serializable transfers, and a three-way deadlock
// retried on 40P01. Each actor retries its transaction on 40001 and 40P01,
// as an application does.
func ThreeActorRepairs() []Race {
	var rs []Race

	// The read-only anomaly (Fekete, O'Neil and O'Neil, 2004): a deposit
	// to savings, a withdrawal from checking that charges a 1 penalty when
	// the two balances it read do not cover it, and a report of both.
	// Under REPEATABLE READ the report can see the deposit while the
	// withdrawal, serialized before the deposit, charged the penalty: no
	// serial order shows that. SERIALIZABLE with retries repairs it.
	bankSQL := "CREATE TABLE checking (id int PRIMARY KEY, bal int NOT NULL); CREATE TABLE savings (id int PRIMARY KEY, bal int NOT NULL); INSERT INTO checking VALUES (1, 0); INSERT INTO savings VALUES (1, 0)"
	deposit := func(iso string) func(context.Context, string) (any, error) {
		return retrying(iso, func(ctx context.Context, c *pgx.Conn) (any, error) {
			_, err := c.Exec(ctx, "UPDATE savings SET bal = bal + 20 WHERE id = 1")
			return nil, err
		})
	}
	withdraw := func(iso string) func(context.Context, string) (any, error) {
		return retrying(iso, func(ctx context.Context, c *pgx.Conn) (any, error) {
			ch, sv, err := readTwo(ctx, c, "SELECT bal FROM checking WHERE id = 1", "SELECT bal FROM savings WHERE id = 1")
			if err != nil {
				return nil, err
			}
			amount := 10
			if ch+sv < 10 {
				amount++ // the overdraft penalty
			}
			_, err = c.Exec(ctx, "UPDATE checking SET bal = bal - $1 WHERE id = 1", amount)
			return nil, err
		})
	}
	report := func(iso string) func(context.Context, string) (any, error) {
		return retrying(iso, func(ctx context.Context, c *pgx.Conn) (any, error) {
			ch, sv, err := readTwo(ctx, c, "SELECT bal FROM checking WHERE id = 1", "SELECT bal FROM savings WHERE id = 1")
			if err != nil {
				return nil, err
			}
			return fmt.Sprintf("%d/%d", ch, sv), nil
		})
	}
	// The withdrawal serialized before the deposit (penalty charged:
	// checking -11) and a report that saw the deposit but not the
	// withdrawal is no serial order.
	anomaly := func(ctx context.Context, db *pgx.Conn, rs []interleave.ActorResult) error {
		var ch int
		if err := db.QueryRow(ctx, "SELECT bal FROM checking WHERE id = 1").Scan(&ch); err != nil {
			return err
		}
		for _, r := range rs {
			if r.Actor == "report" && r.Value == "0/20" && ch == -11 {
				return fmt.Errorf("the report saw the deposit but not the withdrawal, which paid the penalty as if before the deposit (checking %d): no serial order", ch)
			}
		}
		return nil
	}
	bank := func(name, iso string) interleave.Scenario {
		return interleave.Scenario{Name: name, Setup: setup(bankSQL), Invariant: anomaly, Actors: []interleave.Actor{
			{Name: "deposit", Run: deposit(iso)}, {Name: "withdraw", Run: withdraw(iso)}, {Name: "report", Run: report(iso)}}}
	}
	rs = append(rs, Race{Name: "read-only-anomaly-3", Story: "a deposit, a withdrawal with an overdraft penalty and a report; REPEATABLE READ, repaired by SERIALIZABLE with retries",
		Bug: bank("read-only-anomaly", "REPEATABLE READ"), Fix: bank("read-only-anomaly-serializable", "SERIALIZABLE")})

	// Three queue workers each claim the oldest queued job and record the
	// run in a table whose rows reference the job. The bug claims without
	// a lock; the repair claims FOR UPDATE SKIP LOCKED.
	queueSQL := "CREATE TABLE jobs (id int PRIMARY KEY, state text NOT NULL DEFAULT 'queued'); CREATE TABLE runs (id serial PRIMARY KEY, job int NOT NULL REFERENCES jobs, worker text NOT NULL); INSERT INTO jobs (id) VALUES (1), (2), (3)"
	worker := func(name string, locked bool) func(context.Context, string) (any, error) {
		claim := "SELECT id FROM jobs WHERE state = 'queued' ORDER BY id LIMIT 1"
		if locked {
			claim += " FOR UPDATE SKIP LOCKED"
		}
		return retrying("READ COMMITTED", func(ctx context.Context, c *pgx.Conn) (any, error) {
			var id int
			if err := c.QueryRow(ctx, claim).Scan(&id); err != nil {
				if err == pgx.ErrNoRows {
					return 0, nil
				}
				return nil, err
			}
			if _, err := c.Exec(ctx, "INSERT INTO runs (job, worker) VALUES ($1, $2)", id, name); err != nil {
				return nil, err
			}
			_, err := c.Exec(ctx, "UPDATE jobs SET state = 'done' WHERE id = $1", id)
			return id, err
		})
	}
	onceEach := expect("SELECT count(*) FROM (SELECT job FROM runs GROUP BY job HAVING count(*) > 1) twice", 0, "%d jobs ran twice")
	queue := func(name string, locked bool) interleave.Scenario {
		return interleave.Scenario{Name: name, Setup: setup(queueSQL), Invariant: onceEach, Actors: []interleave.Actor{
			{Name: "w1", Run: worker("w1", locked)}, {Name: "w2", Run: worker("w2", locked)}, {Name: "w3", Run: worker("w3", locked)}}}
	}
	rs = append(rs, Race{Name: "skip-locked-workers-3", Story: "three workers claim the oldest queued job and record the run (foreign key to the job); repaired by FOR UPDATE SKIP LOCKED",
		Bug: queue("claim-workers", false), Fix: queue("skip-locked-workers", true)})

	// A report of the total beside two transfers. The bug reads the two
	// accounts in two READ COMMITTED statements; the repair reads them in
	// a SERIALIZABLE READ ONLY DEFERRABLE transaction, beside serializable
	// transfers that retry on 40001.
	accountsSQL := "CREATE TABLE accounts (id int PRIMARY KEY, bal int NOT NULL); INSERT INTO accounts VALUES (1, 50), (2, 50)"
	transfer := func(iso string, from, to int) func(context.Context, string) (any, error) {
		return retrying(iso, move(from, to))
	}
	total := func(iso string) func(context.Context, string) (any, error) {
		return retrying(iso, func(ctx context.Context, c *pgx.Conn) (any, error) {
			a, b, err := readTwo(ctx, c, "SELECT bal FROM accounts WHERE id = 1", "SELECT bal FROM accounts WHERE id = 2")
			if err != nil {
				return nil, err
			}
			return a + b, nil
		})
	}
	totalSeen := func(ctx context.Context, db *pgx.Conn, rs []interleave.ActorResult) error {
		for _, r := range rs {
			if r.Actor == "report" && r.Err == nil && r.Value != 100 {
				return fmt.Errorf("the report saw a total of %v, want 100", r.Value)
			}
		}
		return nil
	}
	reports := func(name, tiso, riso string) interleave.Scenario {
		return interleave.Scenario{Name: name, Setup: setup(accountsSQL), Invariant: totalSeen, Actors: []interleave.Actor{
			{Name: "t1", Run: transfer(tiso, 1, 2)}, {Name: "t2", Run: transfer(tiso, 2, 1)}, {Name: "report", Run: total(riso)}}}
	}
	rs = append(rs, Race{Name: "deferrable-report-3", Story: "a report of two balances beside two transfers; repaired by SERIALIZABLE READ ONLY DEFERRABLE",
		Bug: reports("report-read-committed", "READ COMMITTED", "READ COMMITTED"), Fix: reports("report-deferrable", "SERIALIZABLE", "SERIALIZABLE READ ONLY DEFERRABLE")})

	// Three transfers around a cycle of accounts (1 to 2, 2 to 3, 3 to 1):
	// each locks its source then its destination, so the three can
	// deadlock. The bug gives up on 40P01; the repair retries.
	cycleSQL := "CREATE TABLE accounts (id int PRIMARY KEY, bal int NOT NULL); INSERT INTO accounts VALUES (1, 50), (2, 50), (3, 50)"
	cycle := func(from, to int, retry bool) func(context.Context, string) (any, error) {
		body := move(from, to)
		if retry {
			return retrying("READ COMMITTED", body)
		}
		return once("READ COMMITTED", body)
	}
	allMoved := func(ctx context.Context, db *pgx.Conn, rs []interleave.ActorResult) error {
		for _, r := range rs {
			if r.Err != nil {
				return fmt.Errorf("transfer %s did not happen: %v", r.Actor, r.Err)
			}
		}
		return expect("SELECT sum(bal) FROM accounts", 150, "the accounts hold %d, want 150")(ctx, db, rs)
	}
	cycles := func(name string, retry bool) interleave.Scenario {
		return interleave.Scenario{Name: name, Setup: setup(cycleSQL), Invariant: allMoved, Actors: []interleave.Actor{
			{Name: "a", Run: cycle(1, 2, retry)}, {Name: "b", Run: cycle(2, 3, retry)}, {Name: "c", Run: cycle(3, 1, retry)}}}
	}
	rs = append(rs, Race{Name: "deadlock-cycle-3", Story: "three transfers around a cycle of accounts; the victim of the deadlock gives up, the repair retries on 40P01",
		Bug: cycles("deadlock-cycle", false), Fix: cycles("deadlock-cycle-retry", true)})
	return rs
}

// retrying runs body in a transaction at isolation iso, again on a
// serialization failure or a deadlock (at most 5 tries), as an
// application's retry loop does.
func retrying(iso string, body func(context.Context, *pgx.Conn) (any, error)) func(context.Context, string) (any, error) {
	return transaction(iso, 5, body)
}

// once runs body in one transaction at isolation iso, without retrying.
func once(iso string, body func(context.Context, *pgx.Conn) (any, error)) func(context.Context, string) (any, error) {
	return transaction(iso, 1, body)
}

func transaction(iso string, tries int, body func(context.Context, *pgx.Conn) (any, error)) func(context.Context, string) (any, error) {
	return func(ctx context.Context, cs string) (any, error) {
		c, err := pgx.Connect(ctx, cs)
		if err != nil {
			return nil, err
		}
		defer c.Close(ctx)
		for try := 1; ; try++ {
			if _, err := c.Exec(ctx, "BEGIN ISOLATION LEVEL "+iso); err != nil {
				return nil, err
			}
			v, err := body(ctx, c)
			if err == nil {
				_, err = c.Exec(ctx, "COMMIT")
			}
			if err == nil {
				return v, nil
			}
			if _, rerr := c.Exec(ctx, "ROLLBACK"); rerr != nil {
				return nil, rerr
			}
			if s := sqlState(err); (s != "40001" && s != "40P01") || try == tries {
				return nil, err
			}
		}
	}
}

// readTwo reads two integers, one query each.
func readTwo(ctx context.Context, c *pgx.Conn, q1, q2 string) (int, int, error) {
	var a, b int
	if err := c.QueryRow(ctx, q1).Scan(&a); err != nil {
		return 0, 0, err
	}
	err := c.QueryRow(ctx, q2).Scan(&b)
	return a, b, err
}

// move takes 10 from account from and gives it to account to, one UPDATE
// each.
func move(from, to int) func(context.Context, *pgx.Conn) (any, error) {
	return func(ctx context.Context, c *pgx.Conn) (any, error) {
		if _, err := c.Exec(ctx, "UPDATE accounts SET bal = bal - 10 WHERE id = $1", from); err != nil {
			return nil, err
		}
		_, err := c.Exec(ctx, "UPDATE accounts SET bal = bal + 10 WHERE id = $1", to)
		return nil, err
	}
}

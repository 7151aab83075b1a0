package bench

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
)

// OwnThreeActorRepairs are a second repair of each kind of
// ThreeActorRepairs, written apart from the first: write skew repaired by
// SERIALIZABLE with retries, a one-statement queue claim repaired by FOR
// UPDATE SKIP LOCKED, a report of three balances repaired by SERIALIZABLE
// READ ONLY DEFERRABLE, and a deadlock of row locks taken with SELECT ...
// FOR UPDATE repaired by retrying on 40P01.
func OwnThreeActorRepairs() []Race {
	var rs []Race

	// Three doctors on call; each goes off call when it reads that at
	// least two are on call. Under REPEATABLE READ all three can read 3
	// and leave (write skew); SERIALIZABLE with retries keeps one.
	doctorsSQL := "CREATE TABLE doctors (id int PRIMARY KEY, on_call bool NOT NULL); INSERT INTO doctors VALUES (1, true), (2, true), (3, true)"
	offCall := func(iso string, id int) func(context.Context, string) (any, error) {
		return retrying(iso, func(ctx context.Context, c *pgx.Conn) (any, error) {
			var n int
			if err := c.QueryRow(ctx, "SELECT count(*) FROM doctors WHERE on_call").Scan(&n); err != nil {
				return nil, err
			}
			if n < 2 {
				return false, nil
			}
			_, err := c.Exec(ctx, "UPDATE doctors SET on_call = false WHERE id = $1", id)
			return true, err
		})
	}
	oneOnCall := expectInt("SELECT count(*) FROM doctors WHERE on_call", func(n int) bool { return n >= 1 }, "%d doctors on call, want at least 1")
	doctors := func(name, iso string) interleave.Scenario {
		return interleave.Scenario{Name: name, Setup: setup(doctorsSQL), Invariant: oneOnCall, Actors: []interleave.Actor{
			{Name: "d1", Run: offCall(iso, 1)}, {Name: "d2", Run: offCall(iso, 2)}, {Name: "d3", Run: offCall(iso, 3)}}}
	}
	rs = append(rs, Race{Name: "on-call-3", Story: "three doctors each go off call when at least two are on call; REPEATABLE READ, repaired by SERIALIZABLE with retries",
		Bug: doctors("on-call", "REPEATABLE READ"), Fix: doctors("on-call-serializable", "SERIALIZABLE")})

	// Three workers claim a job in one statement: UPDATE ... WHERE id =
	// (the oldest queued job). The subquery is not evaluated again when
	// the UPDATE waits for another claim of the same row, so two workers
	// can claim one job; FOR UPDATE SKIP LOCKED in the subquery repairs it.
	claimSQL := "CREATE TABLE jobs (id int PRIMARY KEY, state text NOT NULL DEFAULT 'queued', worker text); INSERT INTO jobs (id) VALUES (1), (2), (3)"
	claimer := func(name string, locked bool) func(context.Context, string) (any, error) {
		pick := "SELECT id FROM jobs WHERE state = 'queued' ORDER BY id LIMIT 1"
		if locked {
			pick += " FOR UPDATE SKIP LOCKED"
		}
		return retrying("READ COMMITTED", func(ctx context.Context, c *pgx.Conn) (any, error) {
			var id int
			err := c.QueryRow(ctx, "UPDATE jobs SET state = 'running', worker = $1 WHERE id = ("+pick+") RETURNING id", name).Scan(&id)
			if errors.Is(err, pgx.ErrNoRows) {
				return 0, nil
			}
			return id, err
		})
	}
	claimedOnce := func(ctx context.Context, db *pgx.Conn, rs []interleave.ActorResult) error {
		seen := map[any]string{}
		for _, r := range rs {
			if r.Err != nil || r.Value == 0 {
				continue
			}
			if other, ok := seen[r.Value]; ok {
				return fmt.Errorf("job %v was claimed by %s and by %s", r.Value, other, r.Actor)
			}
			seen[r.Value] = r.Actor
		}
		return nil
	}
	claims := func(name string, locked bool) interleave.Scenario {
		return interleave.Scenario{Name: name, Setup: setup(claimSQL), Invariant: claimedOnce, Actors: []interleave.Actor{
			{Name: "w1", Run: claimer("w1", locked)}, {Name: "w2", Run: claimer("w2", locked)}, {Name: "w3", Run: claimer("w3", locked)}}}
	}
	rs = append(rs, Race{Name: "claim-update-3", Story: "three workers claim the oldest queued job in one UPDATE with a subquery; repaired by FOR UPDATE SKIP LOCKED in the subquery",
		Bug: claims("claim-update", false), Fix: claims("claim-update-skip-locked", true)})

	// A report of three balances, one statement each, beside two
	// serializable transfers (1 to 2, 2 to 3) that retry on 40001. READ
	// COMMITTED can see a total that never was; SERIALIZABLE READ ONLY
	// DEFERRABLE repairs it.
	threeSQL := "CREATE TABLE accounts (id int PRIMARY KEY, bal int NOT NULL); INSERT INTO accounts VALUES (1, 50), (2, 50), (3, 50)"
	sumOfThree := func(iso string) func(context.Context, string) (any, error) {
		return retrying(iso, func(ctx context.Context, c *pgx.Conn) (any, error) {
			total := 0
			for id := 1; id <= 3; id++ {
				var b int
				if err := c.QueryRow(ctx, "SELECT bal FROM accounts WHERE id = $1", id).Scan(&b); err != nil {
					return nil, err
				}
				total += b
			}
			return total, nil
		})
	}
	total150 := func(ctx context.Context, db *pgx.Conn, rs []interleave.ActorResult) error {
		for _, r := range rs {
			if r.Actor == "report" && r.Err == nil && r.Value != 150 {
				return fmt.Errorf("the report saw a total of %v, want 150", r.Value)
			}
		}
		return nil
	}
	threeReports := func(name, tiso, riso string) interleave.Scenario {
		return interleave.Scenario{Name: name, Setup: setup(threeSQL), Invariant: total150, Actors: []interleave.Actor{
			{Name: "t1", Run: retrying(tiso, move(1, 2))}, {Name: "t2", Run: retrying(tiso, move(2, 3))}, {Name: "report", Run: sumOfThree(riso)}}}
	}
	rs = append(rs, Race{Name: "deferrable-report-of-three-3", Story: "a report of three balances beside two transfers along a chain; repaired by SERIALIZABLE READ ONLY DEFERRABLE",
		Bug: threeReports("report-of-three", "SERIALIZABLE", "READ COMMITTED"), Fix: threeReports("report-of-three-deferrable", "SERIALIZABLE", "SERIALIZABLE READ ONLY DEFERRABLE")})

	// Three orders each reserve two items, locking them with SELECT ...
	// FOR UPDATE in the order the order lists them (1 and 2, 2 and 3, 3
	// and 1), then take one of each. The three can deadlock; the bug gives
	// up on 40P01, the repair retries.
	stockSQL := "CREATE TABLE stock (sku int PRIMARY KEY, n int NOT NULL); INSERT INTO stock VALUES (1, 10), (2, 10), (3, 10)"
	reserve := func(a, b int, retry bool) func(context.Context, string) (any, error) {
		body := func(ctx context.Context, c *pgx.Conn) (any, error) {
			for _, sku := range []int{a, b} {
				var n int
				if err := c.QueryRow(ctx, "SELECT n FROM stock WHERE sku = $1 FOR UPDATE", sku).Scan(&n); err != nil {
					return nil, err
				}
			}
			_, err := c.Exec(ctx, "UPDATE stock SET n = n - 1 WHERE sku IN ($1, $2)", a, b)
			return nil, err
		}
		if retry {
			return retrying("READ COMMITTED", body)
		}
		return once("READ COMMITTED", body)
	}
	allReserved := func(ctx context.Context, db *pgx.Conn, rs []interleave.ActorResult) error {
		for _, r := range rs {
			if r.Err != nil {
				return fmt.Errorf("order %s was not reserved: %v", r.Actor, r.Err)
			}
		}
		return expect("SELECT sum(n) FROM stock", 24, "the stock holds %d, want 24")(ctx, db, rs)
	}
	orders := func(name string, retry bool) interleave.Scenario {
		return interleave.Scenario{Name: name, Setup: setup(stockSQL), Invariant: allReserved, Actors: []interleave.Actor{
			{Name: "o1", Run: reserve(1, 2, retry)}, {Name: "o2", Run: reserve(2, 3, retry)}, {Name: "o3", Run: reserve(3, 1, retry)}}}
	}
	rs = append(rs, Race{Name: "reserve-cycle-3", Story: "three orders lock two items each with SELECT ... FOR UPDATE around a cycle; the victim of the deadlock gives up, the repair retries on 40P01",
		Bug: orders("reserve-cycle", false), Fix: orders("reserve-cycle-retry", true)})
	return rs
}

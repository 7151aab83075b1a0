package libpq

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/examples/drivers/drivertest"
	"github.com/pginterleave/interleave/interleavetest"
	"github.com/pginterleave/interleave/sched"
)

// oneInsert is one autocommit INSERT through database/sql with the named
// driver, and no retry of its own: whatever retry happens is the driver's
// and database/sql's. A second actor reads.
func oneInsert(driverName string) interleave.Scenario {
	return interleave.Scenario{
		Name: "one-insert-" + driverName,
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, "CREATE TABLE events (id serial PRIMARY KEY)")
			return err
		},
		Actors: []interleave.Actor{
			{Name: "writer", Run: func(ctx context.Context, cs string) (any, error) {
				db, err := sql.Open(driverName, cs)
				if err != nil {
					return nil, err
				}
				defer db.Close()
				_, err = db.ExecContext(ctx, "INSERT INTO events DEFAULT VALUES")
				return nil, err
			}},
			{Name: "reader", Run: func(ctx context.Context, cs string) (any, error) {
				db, err := sql.Open(driverName, cs)
				if err != nil {
					return nil, err
				}
				defer db.Close()
				var n int
				err = db.QueryRowContext(ctx, "SELECT count(*) FROM events").Scan(&n)
				return n, err
			}},
		},
		// A failed INSERT is the caller's to handle; one that runs twice is
		// not.
		HandleActorErrors: true,
		Invariant:         drivertest.RanAtMostOnce("events", "INSERT"),
	}
}

func faultOptions() interleave.Options {
	return interleave.Options{
		Server: interleave.ServerOptions{Use: interleavetest.Server()},
		Search: interleave.SearchOptions{Faults: sched.Faults{sched.LostReply}, Workers: 1},
	}
}

// runsTwice explores scenario with lost-reply and requires the writer's one
// INSERT to have run twice: once with the lost reply on its first
// connection, once more on a new connection, with no retry in the
// application.
func runsTwice(t *testing.T, sc interleave.Scenario) {
	t.Helper()
	res, err := interleave.Explore(context.Background(), sc, faultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomeViolation || !strings.Contains(res.Message, "ran 2 times") {
		t.Fatalf("outcome %s (%s); want the INSERT run twice", res.Outcome, res.Message)
	}
	var inserts, faulted int
	conns := map[int]bool{}
	for _, u := range res.Artifact.Units {
		if u.Actor == "writer" && len(u.SQL) > 0 && strings.HasPrefix(u.SQL[0], "INSERT") && u.Completed {
			inserts++
			conns[u.Conn] = true
			if u.Fault == "lost-reply" {
				faulted++
			}
		}
	}
	if inserts != 2 || faulted != 1 || len(conns) != 2 {
		t.Fatalf("writer ran %d INSERTs on %d connections, %d with the lost reply; want 2, 2 and 1", inserts, len(conns), faulted)
	}
	if e := res.Artifact.Actors[0].Error; e != "" {
		t.Fatalf("writer returned %q; want no error (the retry was the driver's)", e)
	}
	t.Logf("found after %d attempts", res.Summary.Attempted)
}

// lib/pq reports a connection that ends while it waits for an answer (EOF)
// as driver.ErrBadConn, and database/sql then runs the statement again on
// a new connection: after a lost reply, one autocommit INSERT runs twice.
func TestLibPQRetriesAfterALostReply(t *testing.T) { runsTwice(t, oneInsert("postgres")) }

// pgx's stdlib driver is meant to return driver.ErrBadConn only for an
// error before anything was sent (pgconn.SafeToRetry), yet after a lost
// reply to an autocommit INSERT (pgx v5.12.0) database/sql ran it again:
// the application cannot rely on the driver to refuse the retry.
func TestPgxStdlibRetriesAfterALostReply(t *testing.T) { runsTwice(t, oneInsert("pgx")) }

// Why pgx's stdlib let database/sql retry (pgx v5.12.0, read in
// pgconn/pgconn.go): an Exec without arguments goes by the simple
// protocol, and MultiResultReader.NextResult ignores the error of its
// peekMessage. That read error (the connection ended) has already marked
// the connection closed, so the receiveMessage that follows returns
// connLockError "conn closed", whose SafeToRetry is true ("a lock failure
// by definition happens before the connection is used"), and stdlib turns
// it into driver.ErrBadConn. This test shows the error the application
// gets from pgx.Conn.Exec after a lost reply; if a pgx upgrade fixes it,
// the test fails and docs/faults.md must change with it.
func TestPgxSimpleExecAfterALostReplyLooksSafeToRetry(t *testing.T) {
	sc := interleave.Scenario{
		Name: "pgx-exec-lost-reply",
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, "CREATE TABLE events (id serial PRIMARY KEY)")
			return err
		},
		Actors: []interleave.Actor{{Name: "writer", Run: func(ctx context.Context, cs string) (any, error) {
			conn, err := pgx.Connect(ctx, cs)
			if err != nil {
				return nil, err
			}
			defer conn.Close(ctx)
			_, err = conn.Exec(ctx, "INSERT INTO events DEFAULT VALUES")
			if err == nil {
				return "no error", nil
			}
			return fmt.Sprintf("%v; SafeToRetry %v", err, pgconn.SafeToRetry(err)), nil
		}}, {Name: "reader", Run: drivertest.CountRows("events")}},
		Invariant: func(ctx context.Context, db *pgx.Conn, results []interleave.ActorResult) error {
			if v := fmt.Sprint(results[0].Value); v != "no error" {
				return fmt.Errorf("the INSERT's error: %s", v)
			}
			return nil
		},
	}
	res, err := interleave.Explore(context.Background(), sc, faultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomeViolation {
		t.Fatalf("outcome %s (%s); want the lost reply's error", res.Outcome, res.Message)
	}
	if !strings.Contains(res.Message, "conn closed; SafeToRetry true") {
		t.Fatalf("the INSERT after a lost reply failed with %q; want pgx's connLockError (conn closed), safe to retry", res.Message)
	}
	t.Log(res.Message)
}

// The consequence for code that follows pgx's advice and retries only when
// pgconn.SafeToRetry(err) says nothing was sent: after a lost reply the
// INSERT runs twice.
func TestRetryOnlyWhenSafeToRetryStillRunsTwice(t *testing.T) {
	sc := oneInsert("pgx")
	sc.Name = "pgx-retry-when-safe"
	sc.Actors[0].Run = func(ctx context.Context, cs string) (any, error) {
		for try := 1; ; try++ {
			conn, err := pgx.Connect(ctx, cs)
			if err != nil {
				return nil, err
			}
			_, err = conn.Exec(ctx, "INSERT INTO events DEFAULT VALUES")
			conn.Close(ctx)
			if err == nil || !pgconn.SafeToRetry(err) || try == 3 {
				return try, err
			}
		}
	}
	res, err := interleave.Explore(context.Background(), sc, faultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomeViolation || !strings.Contains(res.Message, "ran 2 times") {
		t.Fatalf("outcome %s (%s); want the INSERT run twice", res.Outcome, res.Message)
	}
	t.Logf("found after %d attempts: %s", res.Summary.Attempted, res.Message)
}

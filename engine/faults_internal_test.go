package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pginterleave/interleave/sched"
	"github.com/pginterleave/interleave/search"
)

// faultScenario: alice inserts a row in a transaction of three simple
// queries (BEGIN, INSERT, COMMIT: units 0, 1, 2 of her connection) and
// returns what her COMMIT saw; bob runs one statement.
func faultScenario() Scenario {
	return Scenario{
		Name: "fault",
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, "CREATE TABLE t (id int PRIMARY KEY)")
			return err
		},
		Actors: []Actor{
			{Name: "alice", Run: func(ctx context.Context, cs string) (any, error) {
				c, err := pgx.Connect(ctx, cs)
				if err != nil {
					return nil, err
				}
				defer c.Close(ctx)
				for _, q := range []string{"BEGIN", "INSERT INTO t VALUES (1)", "COMMIT"} {
					if _, err := c.Exec(ctx, q, pgx.QueryExecModeSimpleProtocol); err != nil {
						return nil, err
					}
				}
				return "committed", nil
			}},
			{Name: "bob", Run: func(ctx context.Context, cs string) (any, error) {
				c, err := pgx.Connect(ctx, cs)
				if err != nil {
					return nil, err
				}
				defer c.Close(ctx)
				_, err = c.Exec(ctx, "SELECT 1", pgx.QueryExecModeSimpleProtocol)
				return nil, err
			}},
		},
		HandleActorErrors: true,
		Invariant:         func(context.Context, *pgx.Conn, []ActorResult) error { return nil },
	}
}

// TestFaultsAtTheCommit injects each fault kind at alice's COMMIT and
// checks what her driver saw, what the database kept and what was recorded.
func TestFaultsAtTheCommit(t *testing.T) {
	ctx, w := testWorker(t)
	sc := faultScenario()
	commit := sched.UnitRef{Actor: 0, Conn: 0, Unit: 2}
	for _, tc := range []struct {
		fault     sched.Fault
		code      string // the SQLSTATE alice's COMMIT got; "" for a broken connection
		rows      int    // rows kept
		completed bool   // the COMMIT ran to completion on the server
	}{
		{sched.LostReply, "", 1, true},
		{sched.Reset, "", 0, false},
		{sched.Terminate, "57P01", 0, false},
	} {
		t.Run(string(tc.fault), func(t *testing.T) {
			r := w.run(ctx, &sc, &search.ChoicePolicy{Specs: []search.ChoiceSpec{{Unit: commit, Over: commit, Fault: tc.fault}}}, nil)
			if r.Outcome != OutcomePass {
				t.Fatalf("outcome %s: %s", r.Outcome, r.Message)
			}
			err := r.Actors[0].Err
			var pgErr *pgconn.PgError
			switch {
			case err == nil:
				t.Fatalf("alice's COMMIT succeeded (%v); want the fault's error", r.Actors[0].Value)
			case tc.code == "" && errors.As(err, &pgErr):
				t.Fatalf("alice got PostgreSQL's %s (%v); want a broken connection", pgErr.Code, err)
			case tc.code != "" && (!errors.As(err, &pgErr) || pgErr.Code != tc.code):
				t.Fatalf("alice got %v; want PostgreSQL's %s", err, tc.code)
			}
			if r.Actors[1].Err != nil {
				t.Fatalf("bob: %v", r.Actors[1].Err)
			}
			var rows int
			if err := w.control.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&rows); err != nil {
				t.Fatal(err)
			}
			if rows != tc.rows {
				t.Fatalf("%d rows kept; want %d", rows, tc.rows)
			}
			var faulted []sched.Decision
			for _, d := range r.Sched.Decisions {
				if d.Fault != sched.NoFault {
					faulted = append(faulted, d)
				}
			}
			if len(faulted) != 1 || faulted[0].Fault != tc.fault || faulted[0].Released[0] != commit || !faulted[0].Choice {
				t.Fatalf("faulted decisions %+v; want one choice releasing %v with %s", faulted, commit, tc.fault)
			}
			for _, u := range r.Sched.Units {
				if u.Ref == commit && (u.Fault != tc.fault || u.Completed != tc.completed) {
					t.Fatalf("COMMIT unit: fault %q, completed %v (%v); want %s, completed %v", u.Fault, u.Completed, u.Error, tc.fault, tc.completed)
				}
			}
			a := w.env.recordAttempt(&sc, "run", r)
			if a.Fingerprint.Faults != string(tc.fault) || len(a.Schedule.Choices) != 1 || a.Schedule.Choices[0].Fault != string(tc.fault) {
				t.Fatalf("artifact: fingerprint faults %q, choices %+v", a.Fingerprint.Faults, a.Schedule.Choices)
			}
		})
	}
}

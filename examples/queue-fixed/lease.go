package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pginterleave/interleave"
)

// The second repair, for a worker that must commit its claim before it
// works (the claim is seen by operators, the work is long): a lease. The
// claim records the claiming backend's pid; a claim whose backend is gone
// (its connection dropped, its backend terminated) is free to take again,
// and a worker whose connection broke starts over and takes it. Marking
// the job done checks that the lease is still the worker's own. This is
// the visibility timeout of a queue, bound to the session instead of a
// clock, so that a test does not wait for a timeout to pass. A done job
// forgets its owner: the invariant and the search compare the database at
// the end, and a backend's pid is no part of what the worker did.

// errLeaseLost: the job is no longer leased to this session.
var errLeaseLost = errors.New("the job's lease passed to another worker")

// workLease runs the next job under a lease, starting over (at most three
// times) when its connection breaks.
func workLease(ctx context.Context, connString string) (any, error) {
	var err error
	for try := 0; try < 3; try++ {
		var v any
		v, err = leaseOnce(ctx, connString)
		var lost connectionLost
		if !errors.As(err, &lost) {
			return v, err
		}
	}
	return nil, err
}

// connectionLost wraps an error after which the session is gone.
type connectionLost struct{ err error }

func (e connectionLost) Error() string { return "connection lost: " + e.err.Error() }
func (e connectionLost) Unwrap() error { return e.err }

func leaseOnce(ctx context.Context, connString string) (any, error) {
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		return nil, connectionLost{err}
	}
	defer conn.Close(ctx)
	lost := func(err error) error {
		var pe *pgconn.PgError
		if conn.IsClosed() || (errors.As(err, &pe) && pe.Severity == "FATAL") {
			return connectionLost{err}
		}
		return err
	}
	var id int
	err = conn.QueryRow(ctx, `UPDATE jobs SET status = 'claimed', owner = pg_backend_pid()
		WHERE id = (SELECT id FROM jobs
		            WHERE status = 'pending'
		               OR (status = 'claimed' AND owner NOT IN (SELECT pid FROM pg_stat_activity WHERE pid IS NOT NULL))
		            ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
		RETURNING id`, pgx.QueryExecModeSimpleProtocol).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "no job", nil
	}
	if err != nil {
		return nil, lost(err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return nil, lost(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, fmt.Sprintf("INSERT INTO results (job_id) VALUES (%d)", id), pgx.QueryExecModeSimpleProtocol); err != nil {
		return nil, lost(err)
	}
	tag, err := tx.Exec(ctx, fmt.Sprintf("UPDATE jobs SET status = 'done', owner = NULL WHERE id = %d AND status = 'claimed' AND owner = pg_backend_pid()", id), pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return nil, lost(err)
	}
	if tag.RowsAffected() != 1 {
		return nil, errLeaseLost
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, lost(err)
	}
	return id, nil
}

// LeaseScenario is Scenario with the lease repair: the same operator and
// the same rule (no job left claimed once every session has ended, each
// job done with its one result).
func LeaseScenario() interleave.Scenario {
	sc := Scenario()
	sc.Name = "queue-lease"
	sc.Setup = func(ctx context.Context, db *pgx.Conn) error {
		_, err := db.Exec(ctx, `CREATE TABLE jobs (id int PRIMARY KEY, status text NOT NULL DEFAULT 'pending', owner int);
			INSERT INTO jobs (id) VALUES (1);
			CREATE TABLE results (job_id int NOT NULL REFERENCES jobs)`)
		return err
	}
	sc.Actors[0] = interleave.Actor{Name: "worker", Run: workLease}
	return sc
}

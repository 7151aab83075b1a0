// Command queue-fixed is examples/queue repaired: the worker claims its job
// with SELECT ... FOR UPDATE SKIP LOCKED inside the transaction that records
// the result and marks the job done. The claim is the row lock: a session
// that ends for any reason rolls the transaction back and the job is
// pending again for the next worker. Every order with every fault passes:
//
//	go run ./cmd/interleave run ./examples/queue-fixed --faults lost-reply,reset,terminate
package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
)

// work claims and runs the next pending job in one transaction.
func work(ctx context.Context, connString string) (any, error) {
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(ctx)
	var id int
	err = tx.QueryRow(ctx, "SELECT id FROM jobs WHERE status = 'pending' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED", pgx.QueryExecModeSimpleProtocol).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "no job", nil
	}
	if err != nil {
		return nil, err
	}
	if _, err := tx.Exec(ctx, fmt.Sprintf("INSERT INTO results (job_id) VALUES (%d)", id), pgx.QueryExecModeSimpleProtocol); err != nil {
		return nil, err
	}
	if _, err := tx.Exec(ctx, fmt.Sprintf("UPDATE jobs SET status = 'done' WHERE id = %d", id), pgx.QueryExecModeSimpleProtocol); err != nil {
		return nil, err
	}
	return id, tx.Commit(ctx)
}

// Scenario is the worker, an operator's query of the queue, and the rule:
// once every session has ended, no job is left claimed, and each job done
// has its one result.
func Scenario() interleave.Scenario {
	return interleave.Scenario{
		Name: "queue",
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, `CREATE TABLE jobs (id int PRIMARY KEY, status text NOT NULL DEFAULT 'pending');
				INSERT INTO jobs (id) VALUES (1);
				CREATE TABLE results (job_id int NOT NULL REFERENCES jobs)`)
			return err
		},
		Actors: []interleave.Actor{
			{Name: "worker", Run: work},
			{Name: "operator", Run: pending},
		},
		// A worker whose session is killed fails; that is allowed, a job
		// lost with it is not.
		HandleActorErrors: true,
		Invariant:         noJobLost,
	}
}

// pending is an operator looking at the queue while the worker runs.
func pending(ctx context.Context, connString string) (any, error) {
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	var n int
	err = conn.QueryRow(ctx, "SELECT count(*) FROM jobs WHERE status = 'pending'", pgx.QueryExecModeSimpleProtocol).Scan(&n)
	return n, err
}

func noJobLost(ctx context.Context, db *pgx.Conn, _ []interleave.ActorResult) error {
	var claimed, done, results int
	if err := db.QueryRow(ctx, `SELECT count(*) FILTER (WHERE status = 'claimed'), count(*) FILTER (WHERE status = 'done'),
		(SELECT count(*) FROM results) FROM jobs`).Scan(&claimed, &done, &results); err != nil {
		return err
	}
	if claimed > 0 {
		return fmt.Errorf("%d job(s) left claimed by a worker that is gone: no worker will run them", claimed)
	}
	if results != done {
		return fmt.Errorf("%d job(s) done with %d result(s)", done, results)
	}
	return nil
}

func main() { interleave.Main(Scenario()) }

// Package sqlx is the github.com/jmoiron/sqlx example, on pgx's database/sql
// driver: a job queue where two workers claim the next job at the same time.
//
// Each worker opens a transaction (BeginTxx), reads the oldest job still
// 'new' into a struct (Get), marks it claimed by itself and logs the claim
// (NamedExec), and commits. Under READ COMMITTED the transaction does not
// help: both workers read the same oldest job before either marks it, the
// second UPDATE waits for the first worker's row lock and then overwrites
// it, and the job is claimed twice while the other job waits forever.
//
// The repair reads the job with SELECT ... FOR UPDATE SKIP LOCKED inside
// the same transaction: the row a worker reads is locked until it commits,
// and the other worker skips it and takes the next job.
package sqlx

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/jmoiron/sqlx"
	"github.com/pginterleave/interleave"
)

// Job is a row of the queue.
type Job struct {
	ID      int64  `db:"id"`
	Payload string `db:"payload"`
}

// Claim is a worker's claim on a job, as logged in claims.
type Claim struct {
	JobID  int64  `db:"job_id"`
	Worker string `db:"worker"`
}

const (
	nextJob       = `SELECT id, payload FROM jobs WHERE status = 'new' ORDER BY id LIMIT 1`
	nextJobLocked = nextJob + ` FOR UPDATE SKIP LOCKED`
)

// ClaimNext is the application code: read the oldest new job, then mark it
// claimed by worker and log the claim. skipLocked selects the repair. It
// returns the claimed job's id, or 0 when no job was left.
func ClaimNext(ctx context.Context, db *sqlx.DB, worker string, skipLocked bool) (int64, error) {
	query := nextJob
	if skipLocked {
		query = nextJobLocked
	}
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	var job Job
	if err := tx.GetContext(ctx, &job, query); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return 0, tx.Commit()
		}
		return 0, err
	}
	c := Claim{JobID: job.ID, Worker: worker}
	if _, err := tx.NamedExecContext(ctx, `UPDATE jobs SET status = 'claimed', worker = :worker WHERE id = :job_id`, c); err != nil {
		return 0, err
	}
	if _, err := tx.NamedExecContext(ctx, `INSERT INTO claims (job_id, worker) VALUES (:job_id, :worker)`, c); err != nil {
		return 0, err
	}
	return job.ID, tx.Commit()
}

// Scenario: two workers claim the next job from a queue of two jobs.
//
// The invariant: no job is claimed (in the claims log) by more than one
// worker, and since there are as many jobs as workers, each worker claimed
// exactly one job, the one it reported, and that job's row says claimed by
// it.
func Scenario(fixed bool) interleave.Scenario {
	name := "sqlx-job-queue"
	if fixed {
		name = "sqlx-job-queue-fixed"
	}
	workers := []string{"worker1", "worker2"}
	actors := make([]interleave.Actor, len(workers))
	for i, w := range workers {
		actors[i] = interleave.Actor{Name: w, Run: func(ctx context.Context, connString string) (any, error) {
			cfg, err := pgx.ParseConfig(connString)
			if err != nil {
				return nil, err
			}
			db := sqlx.NewDb(stdlib.OpenDB(*cfg, noIdlePing), "pgx")
			defer db.Close()
			db.SetMaxOpenConns(1) // one worker, one connection
			return ClaimNext(ctx, db, w, fixed)
		}}
	}
	return interleave.Scenario{
		Name: name,
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, `CREATE TABLE jobs (id serial PRIMARY KEY, payload text NOT NULL,
					status text NOT NULL DEFAULT 'new', worker text);
				CREATE TABLE claims (id serial PRIMARY KEY, job_id int NOT NULL REFERENCES jobs, worker text NOT NULL);
				INSERT INTO jobs (payload) VALUES ('resize photo 1'), ('resize photo 2')`)
			return err
		},
		Actors: actors,
		Invariant: func(ctx context.Context, db *pgx.Conn, results []interleave.ActorResult) error {
			rows, _ := db.Query(ctx, `SELECT job_id, worker FROM claims ORDER BY id`)
			claims, err := pgx.CollectRows(rows, pgx.RowToStructByName[Claim])
			if err != nil {
				return err
			}
			byJob := map[int64][]string{}
			byWorker := map[string][]int64{}
			for _, c := range claims {
				byJob[c.JobID] = append(byJob[c.JobID], c.Worker)
				byWorker[c.Worker] = append(byWorker[c.Worker], c.JobID)
			}
			for job, ws := range byJob {
				if len(ws) > 1 {
					return fmt.Errorf("job %d was claimed by %d workers: %v", job, len(ws), ws)
				}
			}
			for _, r := range results {
				got, _ := r.Value.(int64)
				if got == 0 {
					return fmt.Errorf("%s claimed no job although there was one for each worker", r.Actor)
				}
				if ids := byWorker[r.Actor]; len(ids) != 1 || ids[0] != got {
					return fmt.Errorf("%s reported job %d but the claims log has %v for it", r.Actor, got, ids)
				}
				var status, worker string
				if err := db.QueryRow(ctx, `SELECT status, coalesce(worker, '') FROM jobs WHERE id = $1`, got).Scan(&status, &worker); err != nil {
					return err
				}
				if status != "claimed" || worker != r.Actor {
					return fmt.Errorf("%s claimed job %d, but the job is %s by %q", r.Actor, got, status, worker)
				}
			}
			return nil
		},
	}
}

// noIdlePing turns off the ping with which database/sql on pgx checks a
// connection that sat idle for more than a second before handing it out
// again. Under Interleave a held command can make any pause that long, so
// the "-- ping" would be sent in some orders and not in others (the run
// then diverges from its plan): scenario code must not depend on the clock.
var noIdlePing = stdlib.OptionShouldPing(func(context.Context, stdlib.ShouldPingParams) bool { return false })

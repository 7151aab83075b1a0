package interleave_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/internal/testkit/fixture"
)

// TestEndedContextCancelsLockBlockedQuery: alice holds a row lock; bob's
// UPDATE waits on it until his context ends, which makes pgx send a
// CancelRequest. The proxy forwards it (it names bob's own backend),
// PostgreSQL answers 57014, and the artifact records both the request and
// the SQLSTATE.
//
// Nothing here depends on timing. The scheduler releases alice's SELECT 3
// only once PostgreSQL reports bob's UPDATE waiting on her lock, so when it
// returns she ends bob's context (as his deadline would); bob's driver
// cancels in place (it waits for the server's answer, rather than closing
// the connection at once, pgx's default), so his UPDATE returns only after
// the 57014 went through the proxy; and alice commits only after that.
func TestEndedContextCancelsLockBlockedQuery(t *testing.T) {
	endBob := make(chan context.CancelFunc, 1)
	bobReturned := make(chan struct{})
	sc := interleave.Scenario{
		Name:              "cancel",
		Setup:             fixture.Exec("CREATE TABLE t (id int PRIMARY KEY, v int); INSERT INTO t VALUES (1, 0)"),
		HandleActorErrors: true,
		Actors: []interleave.Actor{
			{Name: "alice", Run: func(ctx context.Context, cs string) (any, error) {
				c, err := connect(ctx, cs)
				if err != nil {
					return nil, err
				}
				defer c.Close(ctx)
				tx, err := c.Begin(ctx)
				if err != nil {
					return nil, err
				}
				if _, err := tx.Exec(ctx, "SELECT v FROM t WHERE id = 1 FOR UPDATE"); err != nil {
					return nil, err
				}
				// By FIFO, bob's UPDATE is released (and blocks) before this.
				if _, err := tx.Exec(ctx, "SELECT 3"); err != nil {
					return nil, err
				}
				select {
				case end := <-endBob:
					end()
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				select { // hold the lock until bob's UPDATE has returned
				case <-bobReturned:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				return nil, tx.Commit(ctx)
			}},
			{Name: "bob", Run: func(ctx context.Context, cs string) (any, error) {
				cfg, err := pgx.ParseConfig(cs)
				if err != nil {
					return nil, err
				}
				cfg.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
					// A bound on a hang, were the cancel lost.
					return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, DeadlineDelay: time.Minute}
				}
				c, err := pgx.ConnectConfig(ctx, cfg)
				if err != nil {
					return nil, err
				}
				defer c.Close(context.Background())
				if _, err := c.Exec(ctx, "SELECT 1"); err != nil {
					return nil, err
				}
				qctx, cancel := context.WithCancel(ctx)
				defer cancel()
				endBob <- cancel
				_, err = c.Exec(qctx, "UPDATE t SET v = v + 1 WHERE id = 1")
				close(bobReturned)
				return nil, err
			}},
		},
		Invariant: func(_ context.Context, _ *pgx.Conn, rs []interleave.ActorResult) error {
			if rs[1].Err == nil {
				return errors.New("bob's UPDATE was not cancelled")
			}
			return nil
		},
	}
	res, err := interleave.RunOnce(fixture.Context(t), sc, opts())
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != interleave.OutcomePass {
		for _, u := range res.Artifact.Units {
			t.Logf("%s %d.%d %v step %d state %s err %s waits %v", u.Actor, u.Conn, u.Unit, u.SQL, u.ReleaseStep, u.SQLState, u.Error, u.LockWaits)
		}
		t.Logf("actors %+v cancels %+v", res.Artifact.Actors, res.Artifact.Cancels)
		t.Fatalf("outcome %s: %s", res.Outcome, res.Message)
	}
	a := res.Artifact
	if len(a.Cancels) == 0 || a.Cancels[0].Actor != "bob" || !a.Cancels[0].Forwarded {
		t.Fatalf("cancel requests recorded: %+v; want bob's, forwarded", a.Cancels)
	}
	var update *struct{ state, err string }
	for _, u := range a.Units {
		if u.Actor == "bob" && len(u.SQL) > 0 && strings.HasPrefix(u.SQL[0], "UPDATE") && !u.Prepare {
			update = &struct{ state, err string }{u.SQLState, u.Error}
			if len(u.LockWaits) == 0 {
				t.Errorf("bob's UPDATE has no recorded lock wait")
			}
		}
	}
	if update == nil || update.state != "57014" {
		t.Fatalf("bob's UPDATE recorded %+v; want SQLSTATE 57014", update)
	}
}

package interleave_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/internal/testkit/fixture"
)

// TestParallelWorkersExploreTheSameSchedules: with the same attempt budget,
// one worker and three workers try the same schedules (the dispatch rule
// keeps the breadth-first order); the frontier left behind is the same.
func TestParallelWorkersExploreTheSameSchedules(t *testing.T) {
	inc := func(ctx context.Context, cs string) (any, error) {
		c, err := pgx.Connect(ctx, cs)
		if err != nil {
			return nil, err
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "UPDATE counter SET n = n + 1 WHERE id = 1"); err != nil {
			return nil, err
		}
		_, err = c.Exec(ctx, "UPDATE counter SET n = n + 1 WHERE id = 1")
		return nil, err
	}
	sc := fixture.Counter(true)
	sc.Actors = []interleave.Actor{{Name: "a", Run: inc}, {Name: "b", Run: inc}, {Name: "c", Run: inc}}
	sc.Invariant = func(context.Context, *pgx.Conn, []interleave.ActorResult) error { return nil }
	var got []string
	for _, workers := range []int{1, 3} {
		o := opts()
		o.Search.Workers, o.Search.MaxAttempts = workers, 40
		res, err := interleave.Explore(fixture.Context(t), sc, o)
		if err != nil {
			t.Fatal(err)
		}
		s := res.Summary
		got = append(got, fmt.Sprintf("attempted %d, distinct %d, pending %d, max depth %d, diverged %d", s.Attempted, s.Distinct, s.Pending, s.MaxDepth, s.Diverged))
	}
	if got[0] != got[1] {
		t.Fatalf("1 worker: %s\n3 workers: %s", got[0], got[1])
	}
	t.Log(got[0])
}

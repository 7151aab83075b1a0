package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave/search"
)

// An explicit order that could never be followed is refused before a
// server starts, saying why (an unknown actor, an actor's commands out of
// their order), rather than failing mid-attempt with "not pending".
func TestRunOnceRefusesAnOrderThatCannotBeFollowed(t *testing.T) {
	run := func(context.Context, string) (any, error) { return nil, nil }
	sc := Scenario{Name: "s", Actors: []Actor{{Name: "alice", Run: run}, {Name: "bob", Run: run}},
		Invariant: func(context.Context, *pgx.Conn, []ActorResult) error { return nil }}
	for _, tc := range []struct {
		order []search.OrderStep
		want  string
	}{
		{[]search.OrderStep{{Actor: "alice"}, {Actor: "carol"}}, `step 2 names "carol", which is not an actor of the scenario (alice, bob)`},
		{[]search.OrderStep{{Actor: "bob", Unit: 1}, {Actor: "bob"}}, "step 1 names bob's command 2 before its command 1"},
	} {
		var o Options
		o.Server.DatabaseURL = "postgres://127.0.0.1:1/none" // never reached
		o.Search.Order = tc.order
		res, err := RunOnce(context.Background(), sc, o)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || res != nil {
			t.Errorf("order %v: %v %v; want the error %q before any work", tc.order, res, err, tc.want)
		}
	}
}

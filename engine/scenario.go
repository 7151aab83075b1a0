// Package engine runs attempts end to end: it resets an attempt's
// database, starts a proxy per actor and the scheduler, runs the actors and
// the invariant, and records the result as an artifact. Explore, RunOnce,
// Replay and Minimize drive it with the policies of package search; the
// root package interleave is the friendly API over them.
package engine

import (
	"context"
	"fmt"
	"regexp"

	"github.com/jackc/pgx/v5"
)

// Scenario is a race to look for: a setup, 2 to 8 actors, and the rule that
// must hold after all of them have finished.
type Scenario struct {
	Name string
	// Setup prepares a fresh database on a direct connection (not proxied).
	Setup func(ctx context.Context, db *pgx.Conn) error
	// Actors run concurrently, each through its own proxy.
	Actors []Actor
	// Invariant judges the final state on a direct connection. A non-nil
	// error is a violation; its message is the failure message.
	Invariant func(ctx context.Context, db *pgx.Conn, results []ActorResult) error
	// HandleActorErrors hands actor errors to the Invariant (in results)
	// instead of ending the attempt as an actor error. Use it when an error
	// is an expected outcome, such as a serialization failure or a deadlock.
	HandleActorErrors bool
	// InvariantConnects says that the Invariant reads the database on
	// connections of its own, not only on db (a JavaScript invariant, a
	// command, a Go invariant that connects with db's configuration). The
	// reduction sees only what runs on db; it must then
	// take every relation as read whole by the invariant, in the order
	// the heap keeps its rows in, which orders every two writes of one
	// table's rows (docs/search.md, "Rows").
	InvariantConnects bool
}

// Actor is one concurrent participant. Run gets the connection string of
// its own proxy; the value it returns is passed to the Invariant and kept in
// the artifact (as JSON when it can be encoded).
type Actor struct {
	Name string
	Run  func(ctx context.Context, connString string) (any, error)
}

// ActorResult is what one actor's Run returned.
type ActorResult struct {
	Actor string
	Value any
	Err   error
}

var actorName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,47}$`)

// Validate reports the first problem with s in words a user can act on.
func (s *Scenario) Validate() error {
	if s.Name == "" {
		return fmt.Errorf("scenario has no Name")
	}
	if n := len(s.Actors); n < 2 || n > 8 {
		return fmt.Errorf("scenario %s has %d actors; it needs 2 to 8", s.Name, n)
	}
	seen := map[string]bool{}
	for i, a := range s.Actors {
		if !actorName.MatchString(a.Name) {
			return fmt.Errorf("scenario %s: actor %d has name %q; names start with a letter and use letters, digits, '_' and '-' (at most 48)", s.Name, i+1, a.Name)
		}
		if seen[a.Name] {
			return fmt.Errorf("scenario %s: two actors are named %s", s.Name, a.Name)
		}
		seen[a.Name] = true
		if a.Run == nil {
			return fmt.Errorf("scenario %s: actor %s has no Run function", s.Name, a.Name)
		}
	}
	if s.Invariant == nil {
		return fmt.Errorf("scenario %s has no Invariant", s.Name)
	}
	return nil
}

// ActorNames lists the actors' names in order.
func (s *Scenario) ActorNames() []string {
	names := make([]string, len(s.Actors))
	for i, a := range s.Actors {
		names[i] = a.Name
	}
	return names
}

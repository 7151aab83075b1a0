package pgserver

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/jackc/pgx/v5"
)

// admin creates and drops the databases one server value owns. It keeps the
// set of names it created so that it can never drop anything else.
type admin struct {
	connString string // to the maintenance database

	mu    sync.Mutex
	conn  *pgx.Conn
	owned map[string]bool
}

func newAdmin(connString string) *admin {
	return &admin{connString: connString, owned: map[string]bool{}}
}

// connect returns the maintenance connection; callers hold a.mu.
// A new connection takes the advisory locks of every database still owned
// again: they are what tells a sweep that a live run holds them.
func (a *admin) connect(ctx context.Context) (*pgx.Conn, error) {
	if a.conn != nil && !a.conn.IsClosed() {
		return a.conn, nil
	}
	c, err := pgx.Connect(ctx, a.connString)
	if err != nil {
		return nil, err
	}
	for name := range a.owned {
		hi, lo := databaseLockKeys(name)
		if _, err := c.Exec(ctx, "SELECT pg_advisory_lock($1, $2)", hi, lo); err != nil {
			_ = c.Close(ctx)
			return nil, fmt.Errorf("hold the lock of database %s: %w", name, err)
		}
	}
	a.conn = c
	return c, nil
}

func (a *admin) create(ctx context.Context) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	c, err := a.connect(ctx)
	if err != nil {
		return "", fmt.Errorf("connect to create a database: %w", err)
	}
	name := newDatabaseName()
	// Owned before it is created: a CREATE DATABASE cancelled by its
	// context (a signal during a run's start) may have completed on the
	// server before the cancel arrived, and dropAll must drop it then too
	// (it drops with IF EXISTS).
	a.owned[name] = true
	if _, err := c.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	// Mark it as Interleave's and hold its advisory lock for as long as this
	// run lives: a sweep drops only marked databases nobody holds (see
	// SweepDatabases). One round trip.
	hi, lo := databaseLockKeys(name)
	claim := fmt.Sprintf("COMMENT ON DATABASE %s IS %s; SELECT pg_advisory_lock(%d, %d)",
		pgx.Identifier{name}.Sanitize(), quoteLiteral(ownerComment()), hi, lo)
	if _, err := c.Exec(ctx, claim, pgx.QueryExecModeSimpleProtocol); err != nil {
		return name, fmt.Errorf("mark database %s as Interleave's: %w", name, err)
	}
	return name, nil
}

func (a *admin) drop(ctx context.Context, name string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.owned[name] || !IsOwnedName(name) {
		return fmt.Errorf("refusing to drop database %q: Interleave did not create it in this run", name)
	}
	c, err := a.connect(ctx)
	if err != nil {
		return fmt.Errorf("connect to drop database %s: %w", name, err)
	}
	if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop database %s: %w", name, err)
	}
	delete(a.owned, name)
	hi, lo := databaseLockKeys(name)
	_, _ = c.Exec(ctx, "SELECT pg_advisory_unlock($1, $2)", hi, lo)
	return nil
}

// dropAll drops every database still owned and closes the connection.
func (a *admin) dropAll(ctx context.Context) error {
	a.mu.Lock()
	names := make([]string, 0, len(a.owned))
	for n := range a.owned {
		names = append(names, n)
	}
	a.mu.Unlock()
	sort.Strings(names)
	var first error
	for _, n := range names {
		if err := a.drop(ctx, n); err != nil && first == nil {
			first = err
		}
	}
	a.mu.Lock()
	if a.conn != nil {
		_ = a.conn.Close(ctx)
		a.conn = nil
	}
	a.mu.Unlock()
	return first
}

func (a *admin) ownedNames() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var names []string
	for n := range a.owned {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

package pgserver

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// admin creates and drops the databases one server value owns. It keeps the
// set of names it created so that it can never drop anything else.
type admin struct {
	connString string // to the maintenance database

	mu    sync.Mutex
	conn  *pgx.Conn
	owned map[string]bool
	// gone are the backends of maintenance connections given up in the
	// middle of a command (a CREATE DATABASE cancelled by its context):
	// the command may still commit after the cancel, so a drop first
	// waits for them to exit.
	gone []int32
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
		if c.IsClosed() {
			a.gone = append(a.gone, int32(c.PgConn().PID()))
		}
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
	if err := a.awaitGone(ctx, c); err != nil {
		return fmt.Errorf("drop database %s: %w", name, err)
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

// awaitGone ends the backends of connections given up mid-command and
// waits until they have exited, so that what they were doing has
// committed or rolled back (PostgreSQL 13 went on with a cancelled CREATE
// DATABASE and committed it after a DROP DATABASE IF EXISTS on a new
// connection had found nothing); callers hold a.mu.
func (a *admin) awaitGone(ctx context.Context, c *pgx.Conn) error {
	if len(a.gone) == 0 {
		return nil
	}
	if _, err := c.Exec(ctx, "SELECT pg_terminate_backend(p) FROM unnest($1::int4[]) p", a.gone); err != nil {
		return fmt.Errorf("end the backend of a cancelled command: %w", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		if err := c.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE pid = ANY($1::int4[])", a.gone).Scan(&n); err != nil {
			return fmt.Errorf("wait for the backend of a cancelled command: %w", err)
		}
		if n == 0 {
			a.gone = nil
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the backends %v of cancelled commands did not exit within 30 s", a.gone)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
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

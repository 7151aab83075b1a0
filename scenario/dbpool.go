package scenario

import (
	"context"
	"errors"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/pginterleave/interleave/pgserver"
)

// dbPool is a server whose databases are reused: dropping one returns it to
// its state after CREATE DATABASE (pgserver.ResetDatabase, a few
// milliseconds) and keeps it for the next CreateDatabase. A spec runs every
// permutation with RunOnce, which creates and drops one database each time;
// CREATE DATABASE costs hundreds of milliseconds and forces a checkpoint.
type dbPool struct {
	pgserver.Server
	own bool // Close closes the server too

	mu       sync.Mutex
	idle     []string
	pristine map[string]*pgserver.Pristine
}

func newDBPool(srv pgserver.Server, own bool) *dbPool {
	return &dbPool{Server: srv, own: own, pristine: map[string]*pgserver.Pristine{}}
}

func (p *dbPool) CreateDatabase(ctx context.Context) (string, error) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		db := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return db, nil
	}
	p.mu.Unlock()
	db, err := p.Server.CreateDatabase(ctx)
	if err != nil {
		return "", err
	}
	err = p.withConn(ctx, db, func(c *pgx.Conn) error {
		pr, err := pgserver.Snapshot(ctx, c)
		if err == nil {
			p.mu.Lock()
			p.pristine[db] = pr
			p.mu.Unlock()
		}
		return err
	})
	if err != nil {
		_ = p.Server.DropDatabase(context.Background(), db)
		return "", err
	}
	return db, nil
}

// DropDatabase resets db and keeps it; a database that cannot be reset is
// dropped.
func (p *dbPool) DropDatabase(ctx context.Context, db string) error {
	p.mu.Lock()
	pr := p.pristine[db]
	p.mu.Unlock()
	if pr == nil {
		return p.Server.DropDatabase(ctx, db)
	}
	err := p.withConn(ctx, db, func(c *pgx.Conn) error { return pgserver.ResetDatabase(ctx, c, db, pr) })
	if err != nil {
		p.mu.Lock()
		delete(p.pristine, db)
		p.mu.Unlock()
		return p.Server.DropDatabase(ctx, db)
	}
	p.mu.Lock()
	p.idle = append(p.idle, db)
	p.mu.Unlock()
	return nil
}

func (p *dbPool) withConn(ctx context.Context, db string, f func(*pgx.Conn) error) error {
	c, err := pgx.Connect(ctx, p.Server.ConnString(db))
	if err != nil {
		return err
	}
	defer c.Close(context.Background())
	return f(c)
}

// Close drops the kept databases, and closes the server when the pool owns
// it.
func (p *dbPool) Close() error {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	var errs []error
	for _, db := range idle {
		errs = append(errs, p.Server.DropDatabase(context.Background(), db))
	}
	if p.own {
		errs = append(errs, p.Server.Close())
	}
	return errors.Join(errs...)
}

// Package pgxpool is the connection-pool example (pgxpool.Pool): the last
// seats of a show booked twice over. Each actor is a request handler that
// books tickets for a party of two; it has its own pool (MaxConns 4) and
// issues the party's tickets concurrently, one goroutine per guest, so one
// request uses two connections at the same time. A goroutine reads how many
// seats are free (capacity minus tickets sold), and if one is, inserts a
// ticket. With three seats left and two parties of two, every guest can see
// a free seat before anyone's ticket is written: four tickets for three seats.
// The guests of one request race each other as well as the other request's.
//
// The repair makes the check part of the write: one statement takes a seat
// from the show's sold counter only WHERE sold < capacity and inserts the
// ticket from the row that UPDATE returned, so a guest whose UPDATE matched
// nothing gets no ticket. Its search is exhaustive (four units, one per
// guest).
//
// A pool needs the multi-producer connection profile
// (interleave.Options{Proxy: interleave.ProxyOptions{Connections: "multi-producer"}}, on the command line
// --connections multi-producer): under the default single-producer profile
// Interleave refuses an actor's second simultaneous connection.
package pgxpool

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pginterleave/interleave"
)

// Capacity is the number of seats of the show.
const Capacity = 3

const (
	freeSeats    = `SELECT s.capacity - (SELECT count(*) FROM tickets t WHERE t.show_id = s.id) FROM shows s WHERE s.id = $1`
	insertTicket = `INSERT INTO tickets (show_id, guest) VALUES ($1, $2)`
	// takeSeat checks and writes in one statement.
	takeSeat = `WITH seat AS (
		UPDATE shows SET sold = sold + 1 WHERE id = $1 AND sold < capacity RETURNING id
	)
	INSERT INTO tickets (show_id, guest) SELECT id, $2 FROM seat`
)

// bookSeat books one guest's ticket: check, then write.
func bookSeat(ctx context.Context, pool *pgxpool.Pool, show int, guest string) (bool, error) {
	var free int
	if err := pool.QueryRow(ctx, freeSeats, show).Scan(&free); err != nil {
		return false, err
	}
	if free <= 0 {
		return false, nil
	}
	_, err := pool.Exec(ctx, insertTicket, show, guest)
	return err == nil, err
}

// bookSeatFixed takes the seat and writes the ticket in one statement.
func bookSeatFixed(ctx context.Context, pool *pgxpool.Pool, show int, guest string) (bool, error) {
	tag, err := pool.Exec(ctx, takeSeat, show, guest)
	return tag.RowsAffected() == 1, err
}

// BookParty is the request handler: one goroutine per guest, each on a
// connection of its own from the pool. It returns the guests who got a
// ticket.
func BookParty(ctx context.Context, pool *pgxpool.Pool, show int, guests []string, fixed bool) ([]string, error) {
	book := bookSeat
	if fixed {
		book = bookSeatFixed
	}
	booked := make([]bool, len(guests))
	errs := make([]error, len(guests))
	var wg sync.WaitGroup
	for i, g := range guests {
		wg.Go(func() { booked[i], errs[i] = book(ctx, pool, show, g) })
	}
	wg.Wait()
	var got []string
	for i, g := range guests {
		if booked[i] {
			got = append(got, g)
		}
	}
	return got, errors.Join(errs...)
}

// Scenario: two parties of two book the same show, which has three seats.
func Scenario(fixed bool) interleave.Scenario {
	name := "pgxpool-overbooking"
	if fixed {
		name = "pgxpool-overbooking-fixed"
	}
	request := func(guests ...string) func(ctx context.Context, connString string) (any, error) {
		return func(ctx context.Context, connString string) (any, error) {
			cfg, err := pgxpool.ParseConfig(connString)
			if err != nil {
				return nil, err
			}
			cfg.MaxConns = 4
			// pgxpool pings a connection that sat idle for more than a
			// second before handing it out again. Under Interleave a held
			// command can make any pause that long, so the "-- ping" would
			// be sent in some orders and not in others (the run then
			// diverges from its plan): scenario code must not depend on
			// the clock, so the ping is off.
			cfg.ShouldPing = func(context.Context, pgxpool.ShouldPingParams) bool { return false }
			pool, err := pgxpool.NewWithConfig(ctx, cfg)
			if err != nil {
				return nil, err
			}
			defer pool.Close()
			return BookParty(ctx, pool, 1, guests, fixed)
		}
	}
	return interleave.Scenario{
		Name: name,
		Setup: func(ctx context.Context, db *pgx.Conn) error {
			_, err := db.Exec(ctx, fmt.Sprintf(`CREATE TABLE shows (id int PRIMARY KEY, capacity int NOT NULL, sold int NOT NULL DEFAULT 0);
				CREATE TABLE tickets (id serial PRIMARY KEY, show_id int NOT NULL REFERENCES shows, guest text NOT NULL);
				INSERT INTO shows (id, capacity) VALUES (1, %d)`, Capacity))
			return err
		},
		Actors: []interleave.Actor{
			{Name: "party1", Run: request("ann", "al")},
			{Name: "party2", Run: request("bea", "bo")},
		},
		Invariant: func(ctx context.Context, db *pgx.Conn, results []interleave.ActorResult) error {
			var tickets int
			if err := db.QueryRow(ctx, "SELECT count(*) FROM tickets WHERE show_id = 1").Scan(&tickets); err != nil {
				return err
			}
			told := 0
			for _, r := range results {
				got, ok := r.Value.([]string)
				if !ok {
					return errors.New("a request returned no list of booked guests")
				}
				told += len(got)
			}
			if tickets > Capacity || told != tickets {
				return fmt.Errorf("overbooked: %d tickets for %d seats (%d guests were told they have a seat)", tickets, Capacity, told)
			}
			return nil
		},
	}
}

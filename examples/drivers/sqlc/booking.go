// Package sqlc is the code-generator example: a seat booking written with
// the Queries methods that sqlc v1.31.1 generated for pgx/v5 (package db,
// from schema.sql and query.sql; regenerate with `sqlc generate` in this
// directory, sqlc.yaml holds the configuration).
//
// The race: each passenger's request reads the seat with GetSeat, sees it
// free, then takes it with AssignSeat and records the sale with
// CreateBooking. Two requests that both read before either writes both see
// the seat free: the second AssignSeat overwrites the first passenger and
// the seat is sold twice.
//
// The repair runs the three queries in one transaction (Queries.WithTx) and
// reads the seat with GetSeatForUpdate (SELECT ... FOR UPDATE). The row lock
// makes the second request's read wait until the first commits; PostgreSQL
// then re-reads the locked row in READ COMMITTED, so the second request sees
// the passenger the first one wrote and books nothing.
package sqlc

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/pginterleave/interleave"
	"github.com/pginterleave/interleave/examples/drivers/sqlc/db"
)

//go:embed schema.sql
var schema string

// The seat both requests want.
const (
	flight = "IL101"
	seat   = "12A"
)

// Book is the application code: read the seat, then take it if it is free.
// It reports whether the passenger got the seat.
func Book(ctx context.Context, q *db.Queries, passenger string) (bool, error) {
	s, err := q.GetSeat(ctx, db.GetSeatParams{Flight: flight, Seat: seat})
	if err != nil {
		return false, err
	}
	if s.Passenger.Valid {
		return false, nil
	}
	if err := q.AssignSeat(ctx, db.AssignSeatParams{ID: s.ID, Passenger: pgtype.Text{String: passenger, Valid: true}}); err != nil {
		return false, err
	}
	if _, err := q.CreateBooking(ctx, db.CreateBookingParams{SeatID: s.ID, Passenger: passenger}); err != nil {
		return false, err
	}
	return true, nil
}

// BookFixed is Book in a transaction whose read locks the seat.
func BookFixed(ctx context.Context, conn *pgx.Conn, passenger string) (booked bool, err error) {
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		q := db.New(conn).WithTx(tx)
		s, err := q.GetSeatForUpdate(ctx, db.GetSeatForUpdateParams{Flight: flight, Seat: seat})
		if err != nil {
			return err
		}
		if s.Passenger.Valid {
			return nil
		}
		if err := q.AssignSeat(ctx, db.AssignSeatParams{ID: s.ID, Passenger: pgtype.Text{String: passenger, Valid: true}}); err != nil {
			return err
		}
		if _, err := q.CreateBooking(ctx, db.CreateBookingParams{SeatID: s.ID, Passenger: passenger}); err != nil {
			return err
		}
		booked = true
		return nil
	})
	return booked, err
}

// Scenario: two passengers book the same seat; it is sold exactly once, to
// the passenger the seat row names.
func Scenario(fixed bool) interleave.Scenario {
	name := "sqlc-seat"
	if fixed {
		name = "sqlc-seat-fixed"
	}
	actor := func(passenger string) func(context.Context, string) (any, error) {
		return func(ctx context.Context, connString string) (any, error) {
			conn, err := pgx.Connect(ctx, connString)
			if err != nil {
				return nil, err
			}
			defer conn.Close(context.Background())
			if fixed {
				return BookFixed(ctx, conn, passenger)
			}
			return Book(ctx, db.New(conn), passenger)
		}
	}
	return interleave.Scenario{
		Name: name,
		Setup: func(ctx context.Context, conn *pgx.Conn) error {
			if _, err := conn.Exec(ctx, schema); err != nil {
				return err
			}
			_, err := conn.Exec(ctx, "INSERT INTO seats (id, flight, seat) VALUES (1, $1, $2)", flight, seat)
			return err
		},
		Actors: []interleave.Actor{{Name: "alice", Run: actor("alice")}, {Name: "bob", Run: actor("bob")}},
		Invariant: func(ctx context.Context, conn *pgx.Conn, _ []interleave.ActorResult) error {
			var holder pgtype.Text
			if err := conn.QueryRow(ctx, "SELECT passenger FROM seats WHERE id = 1").Scan(&holder); err != nil {
				return err
			}
			rows, err := conn.Query(ctx, "SELECT passenger FROM bookings WHERE seat_id = 1 ORDER BY id")
			if err != nil {
				return err
			}
			sold, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				return err
			}
			if len(sold) != 1 || !holder.Valid || sold[0] != holder.String {
				return fmt.Errorf("seat %s on %s was sold %d times %v; the seat names %q", seat, flight, len(sold), sold, holder.String)
			}
			return nil
		},
	}
}

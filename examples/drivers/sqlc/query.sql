-- name: GetSeat :one
SELECT id, flight, seat, passenger FROM seats
WHERE flight = $1 AND seat = $2;

-- name: GetSeatForUpdate :one
SELECT id, flight, seat, passenger FROM seats
WHERE flight = $1 AND seat = $2
FOR UPDATE;

-- name: AssignSeat :exec
UPDATE seats SET passenger = $2 WHERE id = $1;

-- name: CreateBooking :one
INSERT INTO bookings (seat_id, passenger) VALUES ($1, $2)
RETURNING id;

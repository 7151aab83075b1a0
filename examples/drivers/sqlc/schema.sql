CREATE TABLE seats (
    id        bigint PRIMARY KEY,
    flight    text NOT NULL,
    seat      text NOT NULL,
    passenger text,
    UNIQUE (flight, seat)
);

CREATE TABLE bookings (
    id        bigserial PRIMARY KEY,
    seat_id   bigint NOT NULL REFERENCES seats (id),
    passenger text NOT NULL
);

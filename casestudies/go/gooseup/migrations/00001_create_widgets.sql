-- +goose Up
CREATE TABLE widgets (id integer PRIMARY KEY, name text NOT NULL);

-- +goose Down
DROP TABLE widgets;

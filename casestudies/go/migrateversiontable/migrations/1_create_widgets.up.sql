CREATE TABLE widgets (id integer PRIMARY KEY, name text NOT NULL);

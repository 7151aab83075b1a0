CREATE TABLE audit (id int);

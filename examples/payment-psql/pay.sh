#!/bin/sh
# Pay order 1, the racy way: run the charge's transaction with psql, and
# run it again when psql fails (a broken connection exits 2). Each psql call
# finds this actor's proxy through PGHOST/PGPORT/PGDATABASE/PGUSER.
set -u
for try in 1 2 3; do
  if psql -X -q -v ON_ERROR_STOP=1 -c "BEGIN; INSERT INTO charges (order_id, amount) VALUES (1, 30); UPDATE accounts SET balance = balance - 30 WHERE id = 1; COMMIT;"; then
    printf '{"try": %d}' "$try"
    exit 0
  fi
done
exit 1

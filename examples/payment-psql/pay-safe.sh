#!/bin/sh
# Pay order 1 under an idempotency key: the charge is recorded with
# INSERT ... ON CONFLICT DO NOTHING, and the balance is taken only when
# that INSERT added the row, in one statement; a retry after a lost reply
# finds the key and charges nothing.
set -u
for try in 1 2 3; do
  if psql -X -q -v ON_ERROR_STOP=1 -c "WITH c AS (INSERT INTO charges (idempotency_key, order_id, amount) VALUES ('order-1-payment', 1, 30) ON CONFLICT (idempotency_key) DO NOTHING RETURNING amount) UPDATE accounts SET balance = balance - (SELECT amount FROM c) WHERE id = 1 AND EXISTS (SELECT 1 FROM c);"; then
    printf '{"try": %d}' "$try"
    exit 0
  fi
done
exit 1

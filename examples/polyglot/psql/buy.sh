#!/bin/sh
# Buying the last item, the racy way: read the stock, and when some is left,
# decrement it and record the order. Each psql call finds this actor's proxy
# through PGHOST/PGPORT/PGDATABASE/PGUSER; INTERLEAVE_ACTOR names the buyer.
set -eu
q() { psql -X -q -A -t -v ON_ERROR_STOP=1 "$@"; }
stock=$(q -c "SELECT stock FROM items WHERE id = 1")
if [ "$stock" -gt 0 ]; then
  q -c "UPDATE items SET stock = stock - 1 WHERE id = 1"
  # From stdin (not -c) so that psql interpolates :'buyer' as a quoted literal.
  echo "INSERT INTO orders (item_id, buyer) VALUES (1, :'buyer')" | q -v buyer="$INTERLEAVE_ACTOR"
  printf '{"buyer": "%s", "bought": true}' "$INTERLEAVE_ACTOR"
else
  printf '{"buyer": "%s", "bought": false}' "$INTERLEAVE_ACTOR"
fi

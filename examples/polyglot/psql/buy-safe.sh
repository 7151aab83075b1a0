#!/bin/sh
# Buying the last item, repaired: the decrement is conditional (stock > 0)
# and says with RETURNING whether it happened; only then is the order
# recorded. PostgreSQL re-checks stock > 0 on the latest row version.
set -eu
q() { psql -X -q -A -t -v ON_ERROR_STOP=1 "$@"; }
stock=$(q -c "SELECT stock FROM items WHERE id = 1")
bought=false
if [ "$stock" -gt 0 ]; then
  sold=$(q -c "UPDATE items SET stock = stock - 1 WHERE id = 1 AND stock > 0 RETURNING id")
  if [ -n "$sold" ]; then
    # From stdin (not -c) so that psql interpolates :'buyer' as a quoted literal.
    echo "INSERT INTO orders (item_id, buyer) VALUES (1, :'buyer')" | q -v buyer="$INTERLEAVE_ACTOR"
    bought=true
  fi
fi
printf '{"buyer": "%s", "bought": %s}' "$INTERLEAVE_ACTOR" "$bought"

#!/bin/sh
# A customer reading their charges while the payment runs.
exec psql -X -q -A -t -v ON_ERROR_STOP=1 -c "SELECT count(*) FROM charges"

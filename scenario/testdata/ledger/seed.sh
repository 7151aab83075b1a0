set -e
psql -Xq -v ON_ERROR_STOP=1 -c "INSERT INTO ledger (who) VALUES ('seed')"

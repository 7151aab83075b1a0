"""Job claiming, repaired: the claim is a conditional UPDATE (WHERE status =
'queued'), and only the worker whose UPDATE changed the row runs the job.
PostgreSQL re-checks the condition on the latest row version, so a worker
that read the queue too early claims nothing."""
import json
import os

import psycopg2

worker = os.environ.get("INTERLEAVE_ACTOR", "worker")
conn = psycopg2.connect(os.environ["DATABASE_URL"])
conn.autocommit = True
with conn.cursor() as cur:
    cur.execute("SELECT id FROM jobs WHERE status = 'queued' ORDER BY id LIMIT 1")
    row = cur.fetchone()
    claimed = None
    if row is not None:
        cur.execute(
            "UPDATE jobs SET status = 'running', claimed_by = %s WHERE id = %s AND status = 'queued'",
            (worker, row[0]),
        )
        if cur.rowcount == 1:
            cur.execute("INSERT INTO runs (job_id, worker) VALUES (%s, %s)", (row[0], worker))
            claimed = row[0]
    print(json.dumps({"worker": worker, "claimed": claimed}))
conn.close()

"""Job claiming, the racy way: find the oldest queued job, mark it running,
record the run. Two workers that both read the queue before either marks the
job both run it. Run as an Interleave actor with Debian's psycopg2
(/usr/bin/python3): DATABASE_URL points at this actor's proxy and
INTERLEAVE_ACTOR names the worker."""
import json
import os

import psycopg2

worker = os.environ.get("INTERLEAVE_ACTOR", "worker")
conn = psycopg2.connect(os.environ["DATABASE_URL"])
conn.autocommit = True  # each statement commits on its own, as in many job runners
with conn.cursor() as cur:
    cur.execute("SELECT id FROM jobs WHERE status = 'queued' ORDER BY id LIMIT 1")
    row = cur.fetchone()
    if row is None:
        print(json.dumps({"worker": worker, "claimed": None}))
    else:
        job = row[0]
        cur.execute("UPDATE jobs SET status = 'running', claimed_by = %s WHERE id = %s", (worker, job))
        cur.execute("INSERT INTO runs (job_id, worker) VALUES (%s, %s)", (job, worker))
        print(json.dumps({"worker": worker, "claimed": job}))
conn.close()

// An Interleave actor: one deploy running node-pg-migrate's runner (the
// library's public API, the default export that `node-pg-migrate up` calls).
// It runs in a version directory (v5.10.0 or v6.0.0) and loads that
// directory's pinned node-pg-migrate and pg. DATABASE_URL points at this
// actor's proxy. It prints one JSON value and exits 0 also when the runner
// fails, so that the scenario's invariant judges the outcome.
'use strict';
const path = require('path');
const { createRequire } = require('module');

const local = createRequire(path.join(process.cwd(), 'package.json'));
const version = local('node-pg-migrate/package.json').version;
const runner = local('node-pg-migrate').default;

const quiet = () => {};
runner({
  databaseUrl: process.env.DATABASE_URL,
  dir: path.join(__dirname, 'migrations'),
  migrationsTable: 'pgmigrations',
  direction: 'up',
  count: Infinity,
  logger: { debug: quiet, info: quiet, warn: quiet, error: quiet },
})
  .then(
    (ran) => ({ ok: true, nodePgMigrate: version, ran: ran.map((m) => m.name) }),
    // The runner wraps errors with their stack: keep the first line.
    (err) => ({ ok: false, nodePgMigrate: version, error: String(err.message).split('\n')[0] })
  )
  .then((result) => process.stdout.write(JSON.stringify(result)))
  .catch((err) => {
    console.error(err.stack || String(err));
    process.exit(2);
  });

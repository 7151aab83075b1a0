// An Interleave actor: one deploy running `knex migrate:latest` through the
// public API, knex.migrate.latest(). It runs in a version directory
// (v0.95.11 or v0.95.12) and loads that directory's pinned knex and pg.
// DATABASE_URL points at this actor's proxy. It prints one JSON value (its
// result) and exits 0 also when the migration fails, so that the scenario's
// invariant judges the outcome.
'use strict';
const path = require('path');
const { createRequire } = require('module');

const local = createRequire(path.join(process.cwd(), 'package.json'));
const version = local('knex/package.json').version;
const knex = local('knex')({
  client: 'pg',
  connection: process.env.DATABASE_URL,
  // One connection per deploy keeps the actor on one proxied session.
  pool: { min: 1, max: 1 },
});

knex.migrate
  .latest({ directory: path.join(__dirname, 'migrations') })
  .then(
    ([batch, log]) => ({ ok: true, knex: version, batch, migrations: log }),
    (err) => ({ ok: false, knex: version, error: String(err.message).split('\n')[0] })
  )
  .then(async (result) => {
    await knex.destroy();
    process.stdout.write(JSON.stringify(result));
  })
  .catch((err) => {
    console.error(err.stack || String(err));
    process.exit(2);
  });

// An Interleave actor: one request that makes sure the tag "interleave"
// exists, inside a managed transaction, with Sequelize's public API:
// sequelize.transaction(t => Tag.findCreateFind({ where, transaction: t })).
// It runs in a version directory (v6.7.0 or v6.8.0) and loads that
// directory's pinned sequelize, pg and pg-hstore. DATABASE_URL points at
// this actor's proxy. It prints one JSON value and exits 0 also when the
// transaction fails, so that the scenario's invariant judges the outcome.
'use strict';
const path = require('path');
const { createRequire } = require('module');

const local = createRequire(path.join(process.cwd(), 'package.json'));
const version = local('sequelize/package.json').version;
const { Sequelize, DataTypes } = local('sequelize');

const sequelize = new Sequelize(process.env.DATABASE_URL, {
  dialect: 'postgres',
  logging: false,
  // One connection per request keeps the actor on one proxied session.
  pool: { max: 1, min: 0 },
});
const Tag = sequelize.define(
  'Tag',
  { name: { type: DataTypes.STRING, allowNull: false, unique: true } },
  { tableName: 'tags', timestamps: false }
);

sequelize
  .transaction((t) => Tag.findCreateFind({ where: { name: 'interleave' }, transaction: t }))
  .then(
    ([tag, created]) => ({ ok: true, sequelize: version, id: tag.id, created }),
    (err) => ({
      ok: false,
      sequelize: version,
      error: `${err.name}: ${String(err.message).split('\n')[0]}`,
      code: (err.parent && err.parent.code) || null,
    })
  )
  .then(async (result) => {
    await sequelize.close();
    process.stdout.write(JSON.stringify(result));
  })
  .catch((err) => {
    console.error(err.stack || String(err));
    process.exit(2);
  });

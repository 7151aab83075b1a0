// The one migration both deploys try to apply.
exports.up = (knex) =>
  knex.schema.createTable('widgets', (t) => {
    t.increments('id');
    t.string('name');
  });

exports.down = (knex) => knex.schema.dropTable('widgets');

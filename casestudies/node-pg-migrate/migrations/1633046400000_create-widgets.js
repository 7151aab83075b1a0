// The one migration both deploys try to apply.
exports.up = (pgm) => {
  pgm.createTable('widgets', { id: 'id', name: { type: 'text' } });
};

exports.down = (pgm) => {
  pgm.dropTable('widgets');
};

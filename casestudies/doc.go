// Package casestudies reproduces three published races in real npm
// packages, before and after their upstream fixes, with Interleave:
//
//   - knex 0.95.11 / 0.95.12: two knex.migrate.latest() read an empty
//     knex_migrations_lock and both insert a lock row (knex #4694);
//   - node-pg-migrate 5.10.0 / 6.0.0: two runners check for the pgmigrations
//     table before taking the advisory lock, and both create it;
//   - sequelize 6.7.0 / 6.8.0: Model.findCreateFind inside
//     sequelize.transaction; the loser's INSERT raises 23505 and aborts its
//     transaction.
//
// Each case has a directory (knex/, node-pg-migrate/, sequelize/) with the
// actor script and, per version, an npm project (v0.95.11/, v0.95.12/, ...)
// whose package.json and package-lock.json pin the exact versions; npm ci
// installs them into git-ignored node_modules directories when a test
// needs them. Actors are interleave.CommandActor processes running
// `node SCRIPT` in the version directory.
//
// `go test ./casestudies` runs the node-pg-migrate case (CI);
// `go test ./casestudies -run TestMeasure -casestudies.measure -timeout 3h -v`
// runs every measurement of docs/case-studies.md and writes
// casestudies/results/*.md.
package casestudies

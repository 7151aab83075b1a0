// Seat booking, the racy way: check whether seat 12A is free, then insert a
// booking. Two passengers who both check before either inserts both get the
// seat. Run as an Interleave actor: DATABASE_URL points at this actor's
// proxy and INTERLEAVE_ACTOR names the passenger.
'use strict';
const { Client } = require('pg');

async function main() {
  const passenger = process.env.INTERLEAVE_ACTOR || 'passenger';
  const client = new Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query(
      'SELECT count(*)::int AS taken FROM bookings WHERE seat = $1', ['12A']);
    if (rows[0].taken > 0) {
      return { passenger, booked: false };
    }
    await client.query(
      'INSERT INTO bookings (seat, passenger) VALUES ($1, $2)', ['12A', passenger]);
    return { passenger, booked: true };
  } finally {
    await client.end();
  }
}

main().then(
  (result) => process.stdout.write(JSON.stringify(result)),
  (err) => { console.error(err.stack || String(err)); process.exit(1); });

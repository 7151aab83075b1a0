// Seat booking, repaired: the table has a unique constraint on seat (see
// fixed.yaml), and the booking is one INSERT ... ON CONFLICT DO NOTHING whose
// RETURNING row says whether this passenger got the seat. The availability
// check stays (to show the seat map) but no longer decides anything.
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
    const inserted = await client.query(
      'INSERT INTO bookings (seat, passenger) VALUES ($1, $2) ON CONFLICT (seat) DO NOTHING RETURNING passenger',
      ['12A', passenger]);
    return { passenger, booked: inserted.rowCount === 1 };
  } finally {
    await client.end();
  }
}

main().then(
  (result) => process.stdout.write(JSON.stringify(result)),
  (err) => { console.error(err.stack || String(err)); process.exit(1); });

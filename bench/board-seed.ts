/**
 * Fills a tenant up to N loads for the load board (issue 8: the board on a tenant with 100,000 loads)
 * in a few set-based statements, in the first sync's shape: two legs with a carrier, two stops per
 * leg, five updates per load. The loads are older than the tenant's existing ones (the board's first
 * page still shows records posted through the API); triggers are off while filling
 * (`session_replication_role`, superuser), so no change events are recorded for them.
 *
 *   npx tsx bench/board-seed.ts <postgresql://…/migrated scratch db> [loads]   # tenant `big` (bench/explain-board.ts)
 */
import { pathToFileURL } from 'node:url';
import pg from 'pg';

const cities = ['Chicago', 'Dallas', 'Atlanta', 'Denver', 'Reno', 'Gary', 'Boise', 'Omaha', 'Tulsa', 'Fresno'];

/** Adds loads to the tenant until it has `total`; returns how many it added. */
export async function topUpBoard(client: pg.Client, tenantId: string, total: number): Promise<number> {
  const [{ n }] = (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM loads WHERE tenant_id = $1', [tenantId])).rows as [{ n: number }];
  const add = total - n;
  if (add <= 0) return 0;
  await client.query('BEGIN');
  try {
    await client.query('SET LOCAL session_replication_role = replica');
    await client.query(
      `INSERT INTO carriers (tenant_id, permalink, name, fresh_at, changed_at, created_at)
       SELECT $1, 'BC' || i, 'Board carrier ' || i, now(), now(), now() FROM generate_series(1, 100) i
       ON CONFLICT DO NOTHING`,
      [tenantId],
    );
    await client.query(
      `INSERT INTO loads (tenant_id, permalink, tms_id, status, customer_reference_number, order_type, bol_number, po_number,
                          load_mode, customer_name, fresh_at, changed_at, created_at)
       SELECT $1, 'BL' || i, 'BL' || i, (ARRAY['Booked', 'Dispatched', 'In Transit', 'Delivered'])[1 + i % 4], 'CR-B' || i, 'FTL',
              'BOL-B' || i, 'PO-B' || i, 'truckload', 'Customer ' || i % 50, t, t, t
       FROM generate_series(1, $2::int) i, LATERAL (SELECT now() - interval '1 day' - i * interval '1 minute' AS t) c`,
      [tenantId, add],
    );
    // Each load's activity row (the write statements keep it; this fill writes around them).
    await client.query(
      `INSERT INTO load_activity (tenant_id, load_id, last_activity_at)
       SELECT tenant_id, id, changed_at FROM loads WHERE tenant_id = $1 AND permalink LIKE 'BL%' ON CONFLICT DO NOTHING`,
      [tenantId],
    );
    await client.query(
      `INSERT INTO load_legs (tenant_id, permalink, load_id, sequence, carrier_id, driver_name, driver_phone, truck_number,
                              trailer_number, load_unique_key, fresh_at, changed_at, created_at)
       SELECT l.tenant_id, 'BG' || l.permalink || '.' || s, l.id, s, c.id, 'Driver ' || abs(hashtext(l.permalink)) % 300, '+1 312 555 0101',
              'T-' || s, 'TR-' || s, 'K' || l.permalink || '.' || s, l.created_at, l.created_at, l.created_at
       FROM loads l CROSS JOIN generate_series(1, 2) s
       JOIN carriers c ON c.tenant_id = l.tenant_id AND c.permalink = 'BC' || (1 + abs(hashtext(l.permalink || s)) % 100)
       WHERE l.tenant_id = $1 AND l.permalink LIKE 'BL%'`,
      [tenantId],
    );
    await client.query(
      `INSERT INTO stops (tenant_id, permalink, leg_id, sequence, type, location_name, city, state, country, appointment_start,
                          appointment_end, fresh_at, changed_at, created_at)
       SELECT g.tenant_id, 'BS' || g.permalink || '.' || s, g.id, s, (CASE s WHEN 1 THEN 'pickup' ELSE 'delivery' END)::"StopType",
              'DC ' || abs(hashtext(g.permalink)) % 40, c.city, 'IL', 'US',
              g.created_at + s * interval '8 hours', g.created_at + s * interval '10 hours', g.created_at, g.created_at, g.created_at
       FROM load_legs g CROSS JOIN generate_series(1, 2) s
       CROSS JOIN LATERAL (SELECT ($2::text[])[1 + abs(hashtext(g.permalink || s)) % 10] AS city) c
       WHERE g.tenant_id = $1 AND g.permalink LIKE 'BGBL%'`,
      [tenantId, cities],
    );
    // The loads' sets of stop cities (the write statements keep them; this fill writes around them).
    await client.query(
      `INSERT INTO load_cities (tenant_id, city_key, load_id, stops)
       SELECT s.tenant_id, s.city_key, g.load_id, count(*)::int FROM stops s JOIN load_legs g ON g.tenant_id = s.tenant_id AND g.id = s.leg_id
       WHERE s.tenant_id = $1 AND s.permalink LIKE 'BSBGBL%' AND s.city_key IS NOT NULL GROUP BY 1, 2, 3
       ON CONFLICT (tenant_id, city_key, load_id) DO UPDATE SET stops = EXCLUDED.stops`,
      [tenantId],
    );
    await client.query(
      `INSERT INTO load_updates (tenant_id, permalink, load_id, type, occurred_at, status, message, latitude, longitude, city,
                                 state, country, source, created_at)
       SELECT l.tenant_id, 'BU' || l.permalink || '.' || u, l.id, (CASE WHEN u % 2 = 0 THEN 'gps_ping' ELSE 'check_call' END)::"LoadUpdateType",
              l.created_at + u * interval '1 hour', CASE WHEN u % 2 = 1 THEN 'In Transit' END, CASE WHEN u % 2 = 1 THEN 'On schedule' END,
              41.88, -87.63, 'Chicago', 'IL', 'US', 'ELD', l.created_at
       FROM loads l CROSS JOIN generate_series(1, 5) u
       WHERE l.tenant_id = $1 AND l.permalink LIKE 'BL%'`,
      [tenantId],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
  return add;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [url, loads = '100000'] = process.argv.slice(2);
  if (!url) throw new Error('usage: npx tsx bench/board-seed.ts <postgresql://…> [loads]');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  // The tenant bench/explain-board.ts reads.
  await client.query(`INSERT INTO tenants (id, slug, name) VALUES ('00000000-0000-0000-0000-0000000000aa', 'big', 'Big') ON CONFLICT DO NOTHING`);
  console.log(`added ${await topUpBoard(client, '00000000-0000-0000-0000-0000000000aa', Number(loads))} loads`);
  await client.query('ANALYZE');
  await client.end();
}

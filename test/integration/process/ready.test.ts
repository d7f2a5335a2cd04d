/**
 * Ready means ready (issue 28): the real server restarted again and again on the same database, with
 * overload shedding at its defaults, and a few requests sent together the moment `/readyz` answers 200:
 * none is shed. Before, the start-up's own work (Prisma's first query, the partitions' first pass) held
 * the event loop right after readiness and the first requests of an idle server got 503. Asserts
 * outcomes, never latencies.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadBody, routes } from '../../factories/records.js';
import { targets } from '../cli/targets.js';
import { serveTenant, startServer } from './server-process.js';

const restarts = 4;
/** Shedding as shipped (startServer turns it off by default). */
const defaults = { OVERLOAD_EVENT_LOOP_LAG_MS: '500', OVERLOAD_DB_WAITING: '100' };

describe.each(targets)('the first requests after /readyz on $name', { timeout: 600_000 }, ({ create }) => {
  let served: Awaited<ReturnType<typeof serveTenant>>;
  beforeAll(async () => {
    served = await serveTenant(create, 'ready', defaults);
    await served.server.stop(); // the database is migrated and holds the tenant: the restarts begin
  }, 180_000);
  afterAll(() => served?.close());

  test(`${restarts} restarts, three requests each as soon as /readyz answers 200: none is shed`, async () => {
    const { tenant } = served;
    const headers = { 'content-type': 'application/json', 'x-api-key': tenant.apiKey };
    const statuses: number[] = [];
    for (let restart = 0; restart < restarts; restart++) {
      const server = startServer({ ...served.target.env, ...defaults });
      try {
        const base = await server.started();
        let ready = 0;
        for (let poll = 0; ready !== 200; poll++) {
          expect(poll).toBeLessThan(1000);
          ready = (await fetch(`${base}/readyz`)).status;
        }
        const answers = await Promise.all([
          fetch(`${base}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query: '{ viewer { slug } }' }) }),
          fetch(`${base}${routes.load}`, { method: 'POST', headers, body: JSON.stringify(loadBody(tenant)) }),
          fetch(`${base}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query: '{ loads(first: 5) { edges { cursor } } }' }) }),
        ]);
        for (const answer of answers) {
          statuses.push(answer.status);
          await answer.text();
        }
        expect(server.output()).not.toContain('request shed');
      } finally {
        expect(await server.stop()).toBe(0);
      }
    }
    expect(statuses).toEqual(Array(restarts * 3).fill(200));
  });
});

/**
 * Overload shedding on the real server process, where requests arrive over sockets as a TMS sends them.
 * The embedded database executes on the service's thread: bulks queued behind one another hold the
 * event loop past the lag threshold, which is the database working, not the service overloaded (before,
 * a TMS's parallel first sync, each client sending its next batch as the last was answered, got half its
 * batches shed with 503). PostgreSQL works in its own processes: the same requests pass there too.
 * Asserts outcomes, never latencies.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadBody } from '../../factories/records.js';
import { targets } from '../cli/targets.js';
import { serveTenant } from './server-process.js';

describe.each(targets)('overload shedding on $name', { timeout: 240_000 }, ({ create }) => {
  let served: Awaited<ReturnType<typeof serveTenant>>;
  let base: string;
  let tenant: { slug: string; apiKey: string };
  beforeAll(async () => {
    served = await serveTenant(create, 'shed', { OVERLOAD_EVENT_LOOP_LAG_MS: '250' });
    ({ base, tenant } = served);
  }, 180_000);
  afterAll(() => served?.close());

  const shedForLag = async () => {
    const metrics = await (await fetch(`${base}/metrics`)).text();
    return Number(/^requests_shed_total\{reason="event_loop_lag"\} (\d+)/m.exec(metrics)?.[1] ?? 0);
  };
  const postBulk = async (size: number) => {
    const answer = await fetch(`${base}/api/v1/loads/bulk_upsert`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': tenant.apiKey },
      body: JSON.stringify({ records: Array.from({ length: size }, () => loadBody(tenant)) }),
    });
    await answer.text();
    return answer.status;
  };

  test('four clients sending bulk after bulk are all answered: the database work on the thread is not lag', async () => {
    // As an orchestrator does: traffic once /readyz says ready (it waits for the start-up's own work),
    // and from then on nothing is shed, the first bulk included.
    for (let attempt = 0; (await fetch(`${base}/readyz`)).status !== 200; attempt++) expect(attempt).toBeLessThan(30);
    expect(await postBulk(10)).toBe(200);
    const before = await shedForLag();
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let batch = 0; batch < 4; batch++) statuses.push(await postBulk(250));
      }),
    );
    expect(statuses).toEqual(Array(16).fill(200));
    expect(await shedForLag()).toBe(before);
  });
});

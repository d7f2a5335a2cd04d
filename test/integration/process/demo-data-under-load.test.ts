/**
 * `npm start -- --demo-data` with every core busy and overload shedding at a hair trigger: requests the
 * server sheds (503) are sent again by the seed, so the demo tenant still gets the whole data set.
 * The busy siblings load every core, so this file runs alone, after every other test file
 * (vitest.config.ts, `cpuBurners`): it never starves a neighbour (process/shedding.test.ts asserts
 * that nothing is shed).
 */
import { afterAll } from 'vitest';
import { describe, expect, test } from '../../fixtures.js';
import { pgliteTarget, type Target } from '../cli/targets.js';
import { busySiblings, startServer } from './server-process.js';

describe('npm start -- --demo-data under load', { timeout: 240_000 }, () => {
  const targets: Target[] = [];
  afterAll(() => Promise.all(targets.map((target) => target.cleanup())));

  test('fills the demo tenant whole with every core busy: what is shed is sent again', async () => {
    const target = pgliteTarget();
    targets.push(target);
    const busy = busySiblings();
    // Requests are shed whenever the event loop is 2 ms late, which the busy siblings make common.
    const server = startServer({ ...target.env, OVERLOAD_EVENT_LOOP_LAG_MS: '2' }, ['--demo-data']);
    try {
      const base = await server.started();
      const apiKey = (await server.waitFor(/First run: created tenant "demo"[\s\S]*?(tms_[A-Za-z0-9_-]{43})/))[1]!;
      const [, processed] = await server.waitFor(/Demo data: \d+ status mappings; records (\d+) processed\.|--demo-data: seeding failed: .*/);
      // Every record answered processed (a record sent again after a 503 was never written before).
      expect(processed, server.output()).toMatch(/^\d+$/);
      for (const sibling of busy) sibling.kill('SIGKILL');

      const res = await fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'cache-control': 'no-cache' },
        body: JSON.stringify({ query: '{ loads { totalCount } carriers { totalCount } statusMappings { status } }' }),
      });
      const { data } = await res.json();
      expect({ loads: data.loads.totalCount, carriers: data.carriers.totalCount, mappings: data.statusMappings.length }).toEqual({
        loads: 11,
        carriers: 3,
        mappings: 10,
      });
      // How many were shed depends on how the machine schedules the siblings; each shed request was
      // answered 503 and sent again (that it is sent again is proven without timing by test/unit/seed-retry.test.ts).
      const metrics = await (await fetch(`${base}/metrics`)).text();
      const total = (pattern: RegExp) => [...metrics.matchAll(pattern)].reduce((sum, [, n]) => sum + Number(n), 0);
      expect(total(/^http_requests_total\{[^}]*status_code="503"[^}]*\} (\d+)/gm)).toBe(total(/^requests_shed_total\{[^}]*\} (\d+)/gm));
    } finally {
      for (const sibling of busy) sibling.kill('SIGKILL');
      await server.stop();
    }
  });
});

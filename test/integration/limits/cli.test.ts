/**
 * `npm run tenant -- set-rate-limit` as a real child process: what it stores is what the service
 * enforces (checked through the REST API's RateLimit headers on the same database).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { carrierBody, routes } from '../../factories/records.js';
import { migrate } from '../../../src/db/migrate.js';
import { createTenant } from '../../../src/domain/tenant/service.js';
import { uniqueSlug } from '../../helpers/app.js';
import { runTenantCli, targets, withApi, type Target } from '../cli/targets.js';

describe.each(targets)('tenant set-rate-limit on $name', { timeout: 300_000 }, ({ create }) => {
  let target: Target;
  beforeAll(async () => {
    target = await create();
  }, 180_000);
  afterAll(() => target?.cleanup());
  const cli = (...args: string[]) => runTenantCli(args, target.env);

  test('sets records per second and burst, "off" and "default"; the service enforces what is stored', async () => {
    const slug = uniqueSlug('rl');
    const { apiKey } = await target.withDatabase(async (db) => {
      await migrate(db.adapterFactory);
      return createTenant(db, { slug, name: 'Rate Co' });
    });
    const stored = () =>
      target.withDatabase(async (db) => {
        const t = await db.prisma.tenant.findUniqueOrThrow({ where: { slug } });
        return { perSecond: t.rateLimitPerSecond, burst: t.rateLimitBurst };
      });

    const set = await cli('set-rate-limit', slug, '5', '--burst', '12', '--json');
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({ slug, recordsPerSecond: 5, burst: 12 });
    await withApi(target, apiKey, async (api) => {
      const res = await api.post(routes.carrier, carrierBody({ slug }));
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-policy')).toBe('"ingest";q=12;w=3');
    });

    const off = await cli('set-rate-limit', slug, 'off');
    expect(off.code, off.stderr).toBe(0);
    expect(off.stdout).toContain(`${slug}: no ingestion rate limit.`);
    expect(await stored()).toEqual({ perSecond: 0, burst: null });

    const reset = await cli('set-rate-limit', slug, 'default', '--json');
    expect(reset.code, reset.stderr).toBe(0);
    expect(JSON.parse(reset.stdout)).toEqual({ slug, recordsPerSecond: 'default', burst: null });
    expect(await stored()).toEqual({ perSecond: null, burst: null });
  });

  test('bad values exit 2 before the database is opened; an unknown tenant exits 3', async () => {
    for (const args of [['fast'], ['off', '--burst', '5'], ['10', '--burst', '0']]) {
      const res = await cli('set-rate-limit', 'acme', ...args);
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.stderr).toContain('Usage: npm run tenant -- set-rate-limit');
    }
    const nobody = await cli('set-rate-limit', uniqueSlug('nobody'), '10');
    expect(nobody.code).toBe(3);
  });
});

/**
 * `npm run tenant -- …` run as a real child process against the same database the server uses
 * (a PGlite directory; also PostgreSQL when DATABASE_URL is set). What the CLI writes is checked
 * through the REST API and the database, opened in this process after the CLI has exited.
 */
import { afterAll, beforeAll } from 'vitest';
import { describe, expect, test } from '../../fixtures.js';
import { openDatabase } from '../../../src/db/database.js';
import { phases } from '../../../src/domain/status-mapping/service.js';
import { uniqueSlug } from '../../helpers/app.js';
import { carrierBody, loadBody, routes } from '../../factories/records.js';
import { join } from 'node:path';
import { pgliteTarget, repoRoot, runTenantCli, targets, withApi, type Target } from './targets.js';

const apiKeyPattern = /tms_[A-Za-z0-9_-]{43}/;

// Each test starts one or more Node processes: generous timeouts, no timing assertions.
describe.each(targets)('tenant CLI on $name', { timeout: 120_000 }, ({ create }) => {
  let target: Target;
  beforeAll(async () => {
    target = await create();
  });
  afterAll(() => target.cleanup());

  const cli = (...args: string[]) => runTenantCli(args, target.env);

  /** Creates a tenant through the CLI and returns its slug and key. */
  async function createTenant(extra: string[] = []) {
    const slug = uniqueSlug('cli');
    const res = await cli('create', slug, '--name', 'CLI tenant', '--json', ...extra);
    expect(res.code, res.stderr).toBe(0);
    return JSON.parse(res.stdout) as { slug: string; apiKey: string };
  }

  test('create prints the slug and a new key that authenticates REST posts', async () => {
    const slug = uniqueSlug('cli');
    const res = await cli('create', slug, '--name', 'Acme Freight');
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain(`Created tenant ${slug} (Acme Freight)`);
    const apiKey = res.stdout.match(apiKeyPattern)?.[0];
    expect(apiKey).toBeDefined();

    await withApi(target, apiKey!, async (api) => {
      const posted = await api.post(routes.carrier, carrierBody({ slug }));
      expect(posted.status).toBe(200);
      expect(posted.body.status).toBe('processed');
    });
  });

  test('create --json prints exactly one JSON line with the slug and the key', async () => {
    const slug = uniqueSlug('cli');
    const res = await cli('create', slug, '--name', 'Json Co', '--json');
    expect(res.code, res.stderr).toBe(0);
    const lines = res.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toEqual({ slug, apiKey: expect.stringMatching(apiKeyPattern) });
  });

  test('stores only a hash of the key, never the key itself', async () => {
    const { slug, apiKey } = await createTenant();
    const stored = await target.withDatabase((db) => db.prisma.apiKey.findMany({ where: { tenant: { slug } } }));
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(apiKey);
    expect(stored[0]!.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  test('create stores the TMS URL template and refuses one without {key}', async () => {
    const { slug } = await createTenant(['--tms-url-template', 'https://tms.example/loads/{key}']);
    const stored = await target.withDatabase((db) => db.prisma.tenant.findUniqueOrThrow({ where: { slug } }));
    expect(stored.tmsUrlTemplate).toBe('https://tms.example/loads/{key}');

    const bad = await cli('create', uniqueSlug('cli'), '--name', 'X', '--tms-url-template', 'https://tms.example/loads');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('{key}');
  });

  test('create refuses a duplicate slug with exit 4', async () => {
    const { slug } = await createTenant();
    const duplicate = await cli('create', slug, '--name', 'Again');
    expect(duplicate.code).toBe(4);
    expect(duplicate.stderr).toContain(`Tenant "${slug}" already exists`);
    expect(duplicate.stdout).toBe('');
  });

  test('rotate-key issues a working key and the previous key is rejected', async () => {
    const { slug, apiKey: oldKey } = await createTenant();
    const res = await cli('rotate-key', slug, '--json');
    expect(res.code, res.stderr).toBe(0);
    const rotated = JSON.parse(res.stdout) as { slug: string; apiKey: string };
    expect(rotated).toEqual({ slug, apiKey: expect.stringMatching(apiKeyPattern) });
    expect(rotated.apiKey).not.toBe(oldKey);

    await withApi(target, rotated.apiKey, async (api) => {
      expect((await api.post(routes.carrier, carrierBody({ slug }))).status).toBe(200);
    });
    await withApi(target, oldKey, async (api) => {
      const res = await api.post(routes.carrier, carrierBody({ slug }));
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthenticated');
    });
  });

  test('revoke-key leaves the tenant without a working key', async () => {
    const { slug, apiKey } = await createTenant();
    const res = await cli('revoke-key', slug);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain(`Revoked 1 API key of ${slug}`);
    await withApi(target, apiKey, async (api) => {
      expect((await api.post(routes.carrier, carrierBody({ slug }))).status).toBe(401);
    });
    const listed = JSON.parse((await cli('list', '--json')).stdout) as { slug: string; activeKeys: number }[];
    expect(listed.find((t) => t.slug === slug)?.activeKeys).toBe(0);
  });

  test('map-status maps a TMS status and re-phases the stored loads that carry it', async () => {
    const { slug, apiKey } = await createTenant();
    const load = loadBody({ slug }, { native_system_load_status: 'Rolling West' });
    await withApi(target, apiKey, async (api) => {
      expect((await api.post(routes.load, load)).status).toBe(200);
    });
    const phaseOf = () =>
      target.withDatabase(async (db) => (await db.prisma.load.findFirstOrThrow({ where: { permalink: load.native_system_load_permalink as string } })).phase);
    expect(await phaseOf()).toBe('UNMAPPED');

    const res = await cli('map-status', slug, '  rolling west ', 'in_transit', '--json');
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ slug, status: 'rolling west', phase: 'IN_TRANSIT' });
    expect(await phaseOf()).toBe('IN_TRANSIT');
  });

  test('commands naming an unknown tenant exit 3', async () => {
    const nobody = uniqueSlug('nobody');
    for (const args of [
      ['rotate-key', nobody],
      ['revoke-key', nobody],
      ['map-status', nobody, 'Booked', 'COVERED'],
      ['set-stale-interval', nobody, 'pull', '600'],
    ]) {
      const res = await cli(...args);
      expect(res.code, args.join(' ')).toBe(3);
      expect(res.stderr).toContain(`No tenant "${nobody}"`);
    }
  });

  test('set-stale-interval sets a source\'s expected interval and "default" restores the schema default', async () => {
    const { slug } = await createTenant();
    const intervals = () =>
      target.withDatabase(async (db) => {
        const t = await db.prisma.tenant.findUniqueOrThrow({ where: { slug } });
        return { pull: t.pullStaleSeconds, webhook: t.webhookStaleSeconds, unspecified: t.unspecifiedStaleSeconds };
      });
    const defaults = await intervals();

    const set = await cli('set-stale-interval', slug, 'webhook', '900', '--json');
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({ slug, source: 'webhook', seconds: 900 });
    expect(await intervals()).toEqual({ ...defaults, webhook: 900 });

    const reset = await cli('set-stale-interval', slug, 'webhook', 'default');
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toContain(`webhook turns STALE after ${defaults.webhook} s`);
    expect(await intervals()).toEqual(defaults);
  });

  test('the interval set-stale-interval sets is the one ingest health judges a silent source by', async () => {
    const { slug, apiKey } = await createTenant();
    // Two hours, twice the default for pull; the checks below keep minutes of margin for real time passing.
    expect((await cli('set-stale-interval', slug, 'pull', '7200')).code).toBe(0);
    await withApi(target, apiKey, async (api, testApp) => {
      expect((await api.post(routes.carrier, carrierBody({ slug }), { 'service-ingest-source': 'pull' })).status).toBe(200);
      const pullState = async () => {
        const res = await api.graphql('{ ingestHealth { sources { source state } } }');
        return (res.body.data.ingestHealth.sources as { source: string; state: string }[]).find((s) => s.source === 'PULL')?.state;
      };
      testApp.clock.advance(6_600_000); // 1 h 50 min: past the default, within the tenant's interval
      expect(await pullState()).toBe('HEALTHY');
      testApp.clock.advance(1_200_000); // 2 h 10 min
      expect(await pullState()).toBe('STALE');
    });
  });

  test('list shows every tenant as a table, and as JSON with --json', async () => {
    const { slug } = await createTenant(['--tms-url-template', 'https://tms.example/l/{key}']);
    const table = await cli('list');
    expect(table.code, table.stderr).toBe(0);
    const row = table.stdout.split('\n').find((line) => line.startsWith(`${slug} `));
    expect(row).toMatch(/CLI tenant\s+1\s+\d+\/\d+\/\d+\s+\S+Z\s+https:\/\/tms\.example\/l\/\{key\}/);

    const json = await cli('list', '--json');
    expect(JSON.parse(json.stdout)).toContainEqual(expect.objectContaining({ slug, name: 'CLI tenant', activeKeys: 1 }));
  });
});

describe('tenant CLI usage', { timeout: 120_000 }, () => {
  // A DATA_DIR below a file can never be opened: these commands must not need the database.
  const cli = (...args: string[]) => runTenantCli(args, { DATA_DIR: join(repoRoot, 'package.json', 'data'), DATABASE_URL: '' });

  test('--help prints every command and exits 0 without opening a database', async () => {
    const res = await cli('--help');
    expect(res.code).toBe(0);
    for (const command of ['create', 'rotate-key', 'revoke-key', 'map-status', 'set-stale-interval', 'list']) {
      expect(res.stdout).toContain(`  ${command}`);
    }
  });

  test('no command, an unknown command, an unknown option or a missing argument exit 2 with the usage', async () => {
    for (const args of [[], ['launch'], ['list', '--verbose'], ['rotate-key']]) {
      const res = await cli(...args);
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.stderr).toContain('Usage: npm run tenant --');
    }
  });

  test('invalid arguments exit 2 with the reason, before any database is opened', async () => {
    const cases: [string[], string][] = [
      [['create', 'Not_A_Slug', '--name', 'X'], 'Invalid slug "Not_A_Slug"'],
      [['create', 'acme'], '--name'],
      [['map-status', 'acme', 'Booked', 'SOMEWHERE'], phases.join(', ')],
      [['set-stale-interval', 'acme', 'email', '600'], 'Unknown source "email"'],
      [['set-stale-interval', 'acme', 'pull', 'soon'], '"soon" is not a number of seconds'],
      [['set-stale-interval', 'acme', 'pull', '5'], '"5" is not a number of seconds'],
    ];
    for (const [args, reason] of cases) {
      const res = await cli(...args);
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.stderr).toContain(reason);
    }
  });
});

describe('tenant CLI while the embedded database is in use', { timeout: 120_000 }, () => {
  test('says so plainly and exits 1 without touching it; works once it is free', async () => {
    const target = pgliteTarget();
    try {
      const db = await openDatabase({ dataDir: target.env.DATA_DIR! });
      let busy;
      try {
        busy = await runTenantCli(['list'], target.env);
      } finally {
        await db.close();
      }
      expect(busy.code).toBe(1);
      expect(busy.stderr).toContain(`is in use by process ${process.pid} (is the server running?)`);
      expect(busy.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace

      const free = await runTenantCli(['list'], target.env);
      expect(free.code, free.stderr).toBe(0);
    } finally {
      await target.cleanup();
    }
  });
});

describe('tenant CLI with an invalid configuration', { timeout: 120_000 }, () => {
  test('prints the ConfigError as plain lines (no stack) and exits 1', async () => {
    const res = await runTenantCli(['list'], { PORT: 'not-a-port', DATABASE_URL: 'mysql://nowhere' });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('Invalid configuration');
    expect(res.stderr).toContain('DATABASE_URL');
    expect(res.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
  });
});

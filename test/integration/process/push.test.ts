/**
 * `tms-ingest push` as an integrator runs it: the compiled CLI as a child process against the compiled
 * server, on the run's database (PGlite, or PostgreSQL with DATABASE_URL). A first sync of the five
 * kinds from a directory of CSV and NDJSON files, every record then read back over GraphQL; bad rows
 * reported with their lines while the rest is stored; a JSON array with --kind, --source, --sync-run-time
 * and a dry run, and an NDJSON line that is no JSON; a rate-limited tenant paced; a push SIGKILLed and
 * resumed; the server restarted under a push; progress on a terminal and as plain lines; the refusals
 * a person must understand (wrong key, nothing listening, wrong URL); the package's bin and its typed
 * client in an integrator's project that installs this repository with npm.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { uniqueSlug } from '../../helpers/app.js';
import { describe, expect, test } from '../../fixtures.js';
import { childEnv, compiled, repoRoot, targets, type Target } from '../cli/targets.js';
import { startServer, type ServerProcess } from './server-process.js';
import {
  adminTenant,
  firstSync,
  freePort,
  graphql,
  integratorProject,
  runIn,
  runPush,
  startPush,
  storedCarriers,
  storedLoads,
  toCsv,
  toNdjson,
  writeDirectory,
} from './push-files.js';

const adminKey = 'push-test-admin-key-0123456789abcdef';

interface Summary {
  records: number;
  processed: number;
  skipped: number;
  duplicate: number;
  rejected: number;
  pacedMs: number;
  retries: Record<string, number>;
  files: { file: string; kind: string; records: number; rejected: number; rejectsFile: string | null }[];
}

const summaryOf = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!) as Summary;

/** The lines of a rejects file, parsed. */
const rejectsOf = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { line: number; index: number; permalink: string | null; error: { code: string; message: string }; record: unknown });

for (const { name, create } of targets) {
  describe(`tms-ingest push (${name})`, { timeout: 180_000 }, () => {
    let target: Target;
    let server: ServerProcess;
    let base: string;
    let port: number;
    const start = async () => {
      server = startServer({ ...target.env, PORT: String(port), ADMIN_API_KEY: adminKey });
      base = await server.started();
    };
    beforeAll(async () => {
      target = await create();
      port = await freePort();
      await start();
    }, 120_000);
    afterAll(async () => {
      await server?.stop();
      await target?.cleanup();
    });
    const tenant = (rateLimit?: { recordsPerSecond: number; burst: number }) => adminTenant(base, adminKey, uniqueSlug('push'), rateLimit);

    test('a first sync of 20,000 records from a directory of CSV and NDJSON files, in the contract order; every record is then found over GraphQL', async () => {
      const { slug, apiKey } = await tenant();
      const data = firstSync(slug, 4_000);
      // Named so that alphabetical order is not the contract's: the kinds decide the order.
      const dir = writeDirectory({
        'stops.csv': toCsv(data.stops),
        'load_updates.ndjson': toNdjson(data.updates),
        'carriers.csv': toCsv(data.carriers),
        'load_legs.ndjson': toNdjson(data.legs),
        'loads.csv': toCsv(data.loads),
      });
      const records = data.carriers.length + data.loads.length + data.legs.length + data.stops.length + data.updates.length;
      expect(records).toBeGreaterThanOrEqual(20_000);

      const pushed = await runPush([dir, '--url', base, '--key', apiKey, '--json', '--concurrency', '4']);
      expect(pushed).toMatchObject({ code: 0, stderr: expect.not.stringMatching(/\n\s+at /) });
      const summary = summaryOf(pushed.stdout);
      expect(summary).toMatchObject({ records, processed: records, rejected: 0, duplicate: 0 });
      expect(summary.files.map((f) => f.kind)).toEqual(['carrier', 'load', 'load_leg', 'stop', 'load_update']);
      expect(existsSync(join(dir, '.push-checkpoint.json'))).toBe(false);

      expect((await storedCarriers(base, apiKey)).sort()).toEqual(data.carriers.map((c) => c.native_system_carrier_permalink).sort());
      const loads = await storedLoads(base, apiKey);
      const pick = <T>(f: (load: (typeof loads)[number]) => T[]) => loads.flatMap(f).sort();
      expect(loads.map((l) => l.permalink).sort()).toEqual(data.loads.map((l) => l.native_system_load_permalink).sort());
      expect(pick((l) => l.legs.map((g) => g.permalink))).toEqual(data.legs.map((g) => g.native_system_load_leg_permalink).sort());
      expect(pick((l) => l.legs.map((g) => g.carrier?.permalink))).toEqual(data.legs.map((g) => g.native_system_carrier_permalink).sort());
      expect(pick((l) => l.legs.flatMap((g) => g.stops.map((s) => s.permalink)))).toEqual(data.stops.map((s) => s.native_system_stop_permalink).sort());
      expect(pick((l) => l.updates.map((u) => u.permalink))).toEqual(data.updates.map((u) => u.native_system_load_update_permalink).sort());

      // CSV cells became the fields' types: a stop's coordinates are numbers, its sequence an integer.
      const stop = await graphql<{ stop: { sequence: number; latitude: number; appointmentStart: string } }>(
        base,
        apiKey,
        'query S($p: String!) { stop(permalink: $p) { sequence latitude appointmentStart } }',
        { p: data.stops[1]!.native_system_stop_permalink },
      );
      expect(stop.stop).toEqual({ sequence: 2, latitude: 32.78, appointmentStart: data.stops[1]!.appointment_start });
    });

    test('bad rows are rejected with their line numbers into <input>.rejected.ndjson; the rest is stored; exit 1', async () => {
      const { slug, apiKey } = await tenant();
      const data = firstSync(slug, 10);
      const legs: Record<string, unknown>[] = data.legs.map((leg) => ({ ...leg }));
      // Line 3: a typo'd required field (load_leg_seqence); line 6: a load that does not exist.
      const { load_leg_sequence, ...typo } = legs[2]!;
      legs[2] = { ...typo, load_leg_seqence: load_leg_sequence };
      legs[5] = { ...legs[5], native_system_load_permalink: `NOPE-${slug}`, native_system_load_id: 'NOPE' };
      const loads: Record<string, unknown>[] = data.loads.map((load) => ({ ...load }));
      // loads.csv line 5 (header is line 1): a BOL over its 250 characters.
      loads[3] = { ...loads[3], bol_number: 'B'.repeat(251) };
      const stops: Record<string, unknown>[] = data.stops.map((stop) => ({ ...stop }));
      // stops.csv line 4: a sequence that is no number.
      stops[2] = { ...stops[2], stop_sequence: 'two' };
      const dir = writeDirectory({
        'carriers.csv': toCsv(data.carriers),
        'loads.csv': toCsv(loads as never),
        'load_legs.ndjson': toNdjson(legs),
        'stops.csv': toCsv(stops as never),
      });

      const pushed = await runPush([dir, '--url', base, '--key', apiKey, '--json']);
      expect(pushed.code).toBe(1);
      const summary = summaryOf(pushed.stdout);
      // Rejected: L3; G2, G5 and G3 (whose load L3 is missing); S2, and the stops of G2, G3 and G5.
      expect(summary).toMatchObject({ records: 41, processed: 30, rejected: 11 });

      const loadRejects = rejectsOf(join(dir, 'loads.csv.rejected.ndjson'));
      expect(loadRejects).toMatchObject([{ line: 5, index: 3, permalink: `L3-${slug}`, error: { code: 'validation_failed' } }]);
      expect(loadRejects[0]!.error.message).toMatch(/bol_number/);
      const legRejects = rejectsOf(join(dir, 'load_legs.ndjson.rejected.ndjson')).sort((a, b) => a.line - b.line);
      expect(legRejects).toMatchObject([
        { line: 3, index: 2, permalink: `G2-${slug}`, error: { code: 'validation_failed' } },
        { line: 4, index: 3, permalink: `G3-${slug}`, error: { code: 'parent_not_found' } },
        { line: 6, index: 5, permalink: `G5-${slug}`, error: { code: 'parent_not_found' } },
      ]);
      expect(legRejects[0]!.error.message).toMatch(/load_leg_sequence/);
      const stopRejects = rejectsOf(join(dir, 'stops.csv.rejected.ndjson')).sort((a, b) => a.line - b.line);
      expect(stopRejects.map((r) => [r.line, r.permalink, r.error.code])).toEqual([
        [4, `S2-${slug}`, 'validation_failed'],
        ...[4, 5, 6, 7, 10, 11].map((i) => [i + 2, `S${i}-${slug}`, 'parent_not_found']),
      ]);
      expect(stopRejects[0]!.error.message).toMatch(/stop_sequence: "two" is not an integer/);

      const stored = await storedLoads(base, apiKey);
      expect(stored.map((l) => l.permalink).sort()).toEqual(
        data.loads
          .map((l) => l.native_system_load_permalink)
          .filter((p) => p !== `L3-${slug}`)
          .sort(),
      );
      expect(stored.flatMap((l) => l.legs.flatMap((g) => g.stops.map((s) => s.permalink))).length).toBe(
        // Stops of the legs that were stored (not G2, G5, nor G3 whose load L3 was rejected), less S2.
        data.stops.filter((s) => ![`G2-${slug}`, `G3-${slug}`, `G5-${slug}`].includes(s.native_system_load_leg_permalink)).length - 1,
      );

      // The rejects file, fixed, is pushed as it is: each line's `record`.
      const fixed = rejectsOf(join(dir, 'loads.csv.rejected.ndjson')).map((r) => ({ record: { ...(r.record as object), bol_number: 'BOL-3' } }));
      const again = writeDirectory({ 'loads.csv.rejected.ndjson': toNdjson(fixed) });
      const repushed = await runPush([join(again, 'loads.csv.rejected.ndjson'), '--url', base, '--key', apiKey, '--json']);
      expect(repushed.code).toBe(0);
      expect(summaryOf(repushed.stdout)).toMatchObject({ records: 1, processed: 1 });
    });

    test('a JSON array with --kind, --source webhook and --sync-run-time: the dry run stores nothing; an NDJSON line that is no JSON is rejected with its line, the rest stored', async () => {
      const { slug, apiKey } = await tenant();
      const loads = firstSync(slug, 40).loads;
      // A JSON array whose name says no kind: --kind says it.
      const dir = writeDirectory({ 'export.json': `[\n${loads.map((load) => JSON.stringify(load, null, 1)).join(',\n')}\n]\n` });
      const file = join(dir, 'export.json');
      const [earlier, later] = ['2026-11-20T08:00:00Z', '2026-11-21T08:00:00Z'];
      const args = [file, '--kind', 'load', '--url', base, '--key', apiKey, '--json', '--source', 'webhook'];
      const sources = async () =>
        (
          await graphql<{ ingestHealth: { sources: { source: string; lastReceivedAt: string | null }[] } }>(
            base,
            apiKey,
            '{ ingestHealth { sources { source lastReceivedAt } } }',
          )
        ).ingestHealth.sources;

      const rehearsed = await runPush([...args, '--dry-run', '--sync-run-time', later]);
      expect(rehearsed.code).toBe(0);
      expect(summaryOf(rehearsed.stdout)).toMatchObject({ dryRun: true, records: 40, processed: 40, rejected: 0 });
      expect(await storedLoads(base, apiKey)).toEqual([]);
      // Dry runs are counted apart: no path has received anything yet.
      expect((await sources()).every((s) => s.lastReceivedAt === null)).toBe(true);

      const pushed = await runPush([...args, '--sync-run-time', later]);
      expect(pushed.code).toBe(0);
      expect(summaryOf(pushed.stdout)).toMatchObject({ dryRun: false, syncRunTime: '2026-11-21T08:00:00.000Z', records: 40, processed: 40 });
      expect((await storedLoads(base, apiKey)).length).toBe(40);
      const received = Object.fromEntries((await sources()).map((s) => [s.source, s.lastReceivedAt]));
      expect(received).toMatchObject({ WEBHOOK: expect.any(String), PULL: null });

      // The same loads read before the stored ones (an earlier sync_run_time): skipped; line 3 is no JSON.
      const lines = loads.map((load) => JSON.stringify({ ...load, native_system_load_status: 'Delivered' }));
      lines.splice(2, 0, `{"native_system_load_permalink": "L-broken-${slug}", "native_system_load_id": }`);
      const ndjson = join(writeDirectory({ 'loads.ndjson': `${lines.join('\n')}\n` }), 'loads.ndjson');
      const older = await runPush([ndjson, '--url', base, '--key', apiKey, '--json', '--sync-run-time', earlier]);
      expect(older.code).toBe(1);
      expect(summaryOf(older.stdout)).toMatchObject({ records: 41, skipped: 40, processed: 0, rejected: 1 });
      expect(rejectsOf(`${ndjson}.rejected.ndjson`)).toMatchObject([
        { line: 3, index: 2, error: { code: 'invalid_json', message: expect.stringMatching(/^Line 3 is not JSON/) } },
      ]);
    });

    test('a tenant limited to 100 records/s is paced by the RateLimit headers: at most 3 answers 429, waiting no longer in all than the limit requires', async () => {
      // Well under what the server takes on a busy two-core machine, so that the limit is what shows.
      const limit = { recordsPerSecond: 100, burst: 100 };
      const { slug, apiKey } = await tenant(limit);
      const data = firstSync(slug, 700);
      const dir = writeDirectory({ 'loads.ndjson': toNdjson(data.loads) });
      const pushed = await runPush([join(dir, 'loads.ndjson'), '--url', base, '--key', apiKey, '--json', '--concurrency', '4']);
      expect(pushed.code).toBe(0);
      const summary = summaryOf(pushed.stdout);
      expect(summary).toMatchObject({ records: 700, processed: 700 });
      expect(summary.retries.rate_limited).toBeLessThanOrEqual(3);
      // A full bucket at the start, then the refill rate: what the limit makes the whole push wait. The client's
      // own waits (`pacedMs`, computed from the headers, not the wall clock: a slower server only shortens them)
      // are some and at most that, with the headroom of its half-full local bucket.
      const requiredMs = ((700 - limit.burst) / limit.recordsPerSecond) * 1000;
      expect(summary.pacedMs).toBeGreaterThan(0);
      expect(summary.pacedMs).toBeLessThanOrEqual(requiredMs * 1.25);
      expect((await storedLoads(base, apiKey)).length).toBe(700);
    });

    test('a push SIGKILLed in the middle and run again with --resume stores every record once, no load update twice, and a complete rejects file', async () => {
      const { slug, apiKey } = await tenant();
      const data = firstSync(slug, 1_500);
      const updates: Record<string, unknown>[] = [
        ...data.updates,
        ...data.updates.map((u, i) => ({ ...u, native_system_load_update_permalink: `V${i}-${slug}` })),
      ];
      // Every 250th update names a load that does not exist: rejects before and after the kill.
      const bad = new Set<number>();
      for (let i = 0; i < updates.length; i += 250) {
        updates[i] = { ...updates[i], native_system_load_permalink: `NOPE-${slug}` };
        bad.add(i);
      }
      const dir = writeDirectory({ 'loads.ndjson': toNdjson(data.loads), 'load_updates.ndjson': toNdjson(updates) });
      const args = [dir, '--url', base, '--key', apiKey, '--json', '--concurrency', '2', '--progress-interval', '0.05'];

      const first = startPush(args);
      await first.progressed('load_updates.ndjson', data.loads.length + 800);
      first.child.kill('SIGKILL');
      await first.exited;
      expect(existsSync(join(dir, '.push-checkpoint.json'))).toBe(true);

      const resumed = await runPush([...args, '--resume']);
      expect(resumed.code).toBe(1);
      const summary = summaryOf(resumed.stdout);
      // Every record is counted once across both runs (the checkpoint's counts and the rest); a batch
      // the killed run had sent but not yet seen acknowledged is sent again: its updates answer duplicate.
      expect(summary.records).toBe(data.loads.length + updates.length);
      expect(summary.rejected).toBe(bad.size);
      expect(summary.processed + summary.duplicate).toBe(data.loads.length + updates.length - bad.size);

      const rejects = rejectsOf(join(dir, 'load_updates.ndjson.rejected.ndjson'));
      expect(rejects.map((r) => r.index).sort((a, b) => a - b)).toEqual([...bad].sort((a, b) => a - b));
      expect(rejects.map((r) => r.line).sort((a, b) => a - b)).toEqual([...bad].map((i) => i + 1).sort((a, b) => a - b));

      const loads = await storedLoads(base, apiKey);
      expect(loads.length).toBe(data.loads.length);
      const stored = loads.flatMap((l) => l.updates.map((u) => u.permalink));
      expect(new Set(stored).size).toBe(stored.length);
      expect(stored.sort()).toEqual(
        updates
          .filter((_, i) => !bad.has(i))
          .map((u) => u.native_system_load_update_permalink as string)
          .sort(),
      );
      expect(existsSync(join(dir, '.push-checkpoint.json'))).toBe(false);
    });

    test('progress: a live bar on a terminal (done/total, records/s, ETA, counts), plain lines otherwise', async () => {
      const { slug, apiKey } = await tenant();
      const dir = writeDirectory({ 'carriers.csv': toCsv(firstSync(slug, 2_000).carriers) });
      const file = join(dir, 'carriers.csv');
      // A pseudo-terminal through util-linux's script(1): stderr is a TTY for the child.
      const command = [process.execPath, ...compiled('cli/push'), file, '--url', base, '--key', apiKey].map((arg) => `'${arg}'`).join(' ');
      const terminal = await new Promise<string>((resolve, reject) =>
        execFile('script', ['-q', '-e', '-c', command, '/dev/null'], { cwd: repoRoot, env: childEnv({}) }, (error, stdout) =>
          error ? reject(new Error(`script(1) failed: ${error.message}`)) : resolve(stdout),
        ),
      );
      expect(terminal).toMatch(/[█░]+ 100\/100 records \(100%\) \| [\d,]+ records\/s \| ETA \S+ .*\| processed 100 skipped 0 duplicate 0 rejected 0/);
      // Cursor control (ESC [): the bar is redrawn in place.
      const escape = String.fromCharCode(27);
      expect(terminal).toContain(`${escape}[`);
      expect(terminal).toMatch(/Pushed 100 records/);

      const plain = await runPush([file, '--url', base, '--key', apiKey]);
      expect(plain.code).toBe(0);
      expect(plain.stderr).not.toContain(escape);
      expect(plain.stderr.trim().split('\n').at(-1)).toMatch(
        /^push done: 100\/100 records \(100%\), [\d,]+ records\/s; processed 100, skipped 0, duplicate 0, rejected 0$/,
      );
    });

    test('a wrong key, nothing listening and a wrong URL exit 2 with a sentence a person understands', async () => {
      const { slug, apiKey } = await tenant();
      const dir = writeDirectory({ 'carriers.ndjson': toNdjson(firstSync(slug, 20).carriers) });
      const wrongKey = await runPush([dir, '--url', base, '--key', 'tms_wrong']);
      expect(wrongKey).toMatchObject({ code: 2, stderr: expect.stringMatching(/^The API key was refused \(401 unauthenticated/) });
      const nobody = await runPush([dir, '--url', `http://127.0.0.1:${await freePort()}`, '--key', apiKey]);
      expect(nobody).toMatchObject({
        code: 2,
        stderr: expect.stringMatching(/^Cannot reach http:\/\/127\.0\.0\.1:\d+: nothing is listening there \(connection refused\)/),
      });
      const wrongUrl = await runPush([dir, '--url', `${base}/api/v1`, '--key', apiKey]);
      expect(wrongUrl).toMatchObject({ code: 2, stderr: expect.stringMatching(/does not look like a tms-ingest service/) });
      const noKey = await runPush([dir, '--url', base], { TMS_INGEST_API_KEY: '' });
      expect(noKey).toMatchObject({ code: 2, stderr: expect.stringMatching(/^No API key/) });
      for (const result of [wrongKey, nobody, wrongUrl]) expect(result.stderr).not.toMatch(/\n\s+at /);
    });

    test("the package's bin, installed with npm into an integrator's project: node_modules/.bin/tms-ingest push and npx tms-ingest push push a file, --help exits 0, a usage error exits 2 with its sentence", async () => {
      const { slug, apiKey } = await tenant();
      const data = firstSync(slug, 100);
      const project = await integratorProject({ 'carriers.csv': toCsv(data.carriers), 'loads.ndjson': toNdjson(data.loads) });
      const bin = join(project, 'node_modules', '.bin', 'tms-ingest');
      // The link npm made, to the file package.json's bin names, run through its #! line.
      expect(realpathSync(bin)).toBe(join(realpathSync(repoRoot), 'dist', 'cli', 'bin.js'));

      const pushed = await runIn(project, bin, ['push', 'loads.ndjson', '--url', base, '--key', apiKey, '--json']);
      expect(pushed).toMatchObject({ code: 0, stderr: expect.not.stringMatching(/\n\s+at /) });
      expect(summaryOf(pushed.stdout)).toMatchObject({ records: 100, processed: 100, rejected: 0 });
      expect((await storedLoads(base, apiKey)).map((l) => l.permalink).sort()).toEqual(data.loads.map((l) => l.native_system_load_permalink).sort());
      // Through npx, the key from the environment: nothing but push's own output on stdout.
      const viaNpx = await runIn(project, 'npx', ['--offline', 'tms-ingest', 'push', 'carriers.csv', '--url', base, '--json'], { TMS_INGEST_API_KEY: apiKey });
      expect(viaNpx.code).toBe(0);
      expect(viaNpx.stdout.trim().split('\n')).toHaveLength(1);
      expect(summaryOf(viaNpx.stdout)).toMatchObject({ records: 5, processed: 5, files: [{ kind: 'carrier' }] });
      expect((await storedCarriers(base, apiKey)).sort()).toEqual(data.carriers.map((c) => c.native_system_carrier_permalink).sort());

      const help = await runIn(project, bin, ['push', '--help']);
      expect(help).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Usage: tms-ingest push <file or directory> \[options\]/), stderr: '' });
      const badOption = await runIn(project, bin, ['push', 'loads.ndjson', '--key', apiKey, '--concurrency', 'many']);
      expect(badOption).toMatchObject({
        code: 2,
        stdout: '',
        stderr: expect.stringMatching(/^--concurrency "many" is not a whole number from 1 to 32\.\n\nUsage: tms-ingest push/),
      });
      const noFile = await runIn(project, 'npx', ['--offline', 'tms-ingest', 'push', '--key', apiKey]);
      expect(noFile).toMatchObject({ code: 2, stderr: expect.stringMatching(/^No file or directory given\./) });
      const unknown = await runIn(project, bin, ['psuh', 'loads.ndjson']);
      expect(unknown).toMatchObject({ code: 2, stderr: expect.stringMatching(/^Usage: tms-ingest <command> \[arguments\]\n[^]*\n {2}push {8}push records/) });
      for (const result of [badOption, noFile, unknown]) expect(result.stderr).not.toMatch(/\n\s+at /);
    });

    test('tms-ingest/client from another TypeScript project: it type-checks against the zod-inferred types and pushes through the exports map', async () => {
      const { slug, apiKey } = await tenant();
      const project = await integratorProject({
        'tsconfig.json': JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            strict: true,
            // As \`tsc --init\` writes it: the project's own files are checked against the client's
            // declarations; the libraries' declarations (zod's, Node's) are not checked again (most of the time).
            skipLibCheck: true,
            outDir: 'out',
            types: ['node'],
            typeRoots: [join(repoRoot, 'node_modules', '@types')],
          },
          files: ['sync.ts'],
        }),
        'sync.ts': `import { createClient, IngestApiError, isRecordError, type RecordOf } from 'tms-ingest/client';
const client = createClient({ url: process.env.URL!, apiKey: process.env.KEY!, source: 'pull' });
const load: RecordOf['load'] = { native_system_load_permalink: 'L1-${slug}', native_system_load_id: 'L1', native_system_load_status: 'Booked' };
// @ts-expect-error a required field (native_system_load_status) is missing
const incomplete: RecordOf['load'] = { native_system_load_permalink: 'L2-${slug}', native_system_load_id: 'L2' };
// @ts-expect-error stop_sequence is an integer, not a string
const wrong: RecordOf['stop']['stop_sequence'] = 'one';
void incomplete; void wrong;
const { results } = await client.bulkWrite('load', [load, { ...load, native_system_load_permalink: 'L3-elsewhere' }]);
const lines = results.map((r) => (isRecordError(r) ? \`\${r.index} \${r.error.code}\` : \`\${r.index} \${r.status}\`));
const single = await client.upsert('load', { ...load, bol_number: 'BOL-1' }, { syncRunTime: new Date() });
const rehearsed = await client.upsert('load', { ...load, native_system_load_permalink: 'L9-${slug}', native_system_load_id: 'L9' }, { dryRun: true });
const update: RecordOf['load_update'] = { native_system_load_update_permalink: 'U1-${slug}', native_system_load_permalink: 'L1-${slug}', update_type: 'gps_ping', occurred_at: '2026-11-01T00:00:00Z', latitude: 40.1, longitude: -90.2 };
const created = await client.createLoadUpdate(update);
const again = await client.createLoadUpdate(update);
const deleted = await client.delete('load', { native_system_load_permalink: 'L1-${slug}' });
// A request the service refuses whole (400: no JSON) is not sent again.
let refused = '';
try {
  await client.bulkSerialized('load', 'upsert', ['{"native_system_load_permalink": }']);
} catch (error) {
  refused = error instanceof IngestApiError ? \`\${error.status} \${error.code}\` : String(error);
}
console.log(JSON.stringify([...lines, single.status, rehearsed.status, rehearsed.dry_run, created.status, again.status, deleted.status, refused, client.stats().requests]));
`,
      });
      const run = async (file: string, args: string[], env: Record<string, string> = {}) => {
        const { code, stdout, stderr } = await runIn(project, file, args, env);
        return { code, output: stdout + stderr };
      };
      const checked = await run(process.execPath, [join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json']);
      expect(checked).toEqual({ code: 0, output: '' });
      const ran = await run(process.execPath, ['out/sync.js'], { URL: base, KEY: apiKey });
      expect(ran).toEqual({
        code: 0,
        output: `${JSON.stringify(['0 processed', '1 validation_failed', 'processed', 'processed', true, 'processed', 'duplicate', 'processed', '400 invalid_json', 7])}\n`,
      });
      // The dry run stored nothing; the delete removed L1.
      expect((await storedLoads(base, apiKey)).map((l) => l.permalink)).toEqual([]);
    });

    // Last: it restarts the server.
    test('the server restarted during a push: the client retries through the 503s and refused connections; every record is stored', async () => {
      // Paced at 500 records/s, the push lasts some 3 s whatever the machine: the restart falls inside it.
      const { slug, apiKey } = await tenant({ recordsPerSecond: 500, burst: 500 });
      const data = firstSync(slug, 2_000);
      const dir = writeDirectory({ 'loads.ndjson': toNdjson(data.loads) });
      const push = startPush([join(dir, 'loads.ndjson'), '--url', base, '--key', apiKey, '--json', '--concurrency', '2', '--progress-interval', '0.05']);
      await push.progressed('loads.ndjson', 500);
      expect(await server.stop()).toBe(0);
      await start();
      expect(await push.exited).toBe(0);
      const summary = summaryOf(push.output().stdout);
      expect(summary).toMatchObject({ records: 2_000, rejected: 0 });
      expect(summary.processed + summary.skipped).toBe(2_000);
      expect(summary.retries.connection! + summary.retries.unavailable!).toBeGreaterThan(0);
      expect((await storedLoads(base, apiKey)).length).toBe(2_000);
    });
  });
}

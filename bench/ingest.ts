/**
 * Ingestion benchmark: drives the real app in-process (the same `app.fetch` path a TMS request
 * takes, minus the socket) and reports throughput and latency per scenario.
 *
 *   npm run bench                          # embedded PGlite, in memory
 *   DATABASE_URL=postgresql://… npm run bench   # PostgreSQL (creates and drops a scratch database)
 *   BENCH_REQUESTS=5000 BENCH_CONCURRENCY=32 npm run bench
 *
 * Measure here, never with timed assertions in tests.
 */
import { createApp } from '../src/app.js';
import { systemClock } from '../src/clock.js';
import { loadConfig } from '../src/config.js';
import { createIngestRecorder } from '../src/domain/ingest-health/recorder.js';
import { createTenant } from '../src/domain/tenant/service.js';
import { createLogger } from '../src/logger.js';
import { createTestDatabase } from '../test/setup/database.js';

const requests = Number(process.env.BENCH_REQUESTS ?? 2000);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);

/** Runs `count` requests with at most `concurrency` in flight; returns per-request latencies in ms. */
async function run(count: number, send: (i: number) => Promise<Response>): Promise<number[]> {
  const latencies: number[] = [];
  let next = 0;
  async function worker() {
    while (next < count) {
      const i = next++;
      const started = performance.now();
      const res = await send(i);
      const body = await res.text();
      if (res.status !== 200) throw new Error(`request ${i} answered ${res.status}: ${body}`);
      latencies.push(performance.now() - started);
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  return latencies;
}

function report(name: string, latencies: number[], wallMs: number) {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(2);
  const rps = ((latencies.length / wallMs) * 1000).toFixed(0);
  console.log(`${name.padEnd(28)} ${String(latencies.length).padStart(6)} req  ${rps.padStart(6)} req/s  p50 ${at(0.5)} ms  p95 ${at(0.95)} ms  p99 ${at(0.99)} ms`);
}

async function main() {
  // The tests' scratch database: PGlite in memory, or a fresh PostgreSQL database (dropped at the end).
  const { db, drop } = await createTestDatabase();
  const config = loadConfig({ LOG_LEVEL: 'silent', NODE_ENV: 'production' });
  const logger = createLogger('silent');
  const recorder = createIngestRecorder({ db, clock: systemClock, logger, flushIntervalMs: 1000 });
  const app = createApp({ config, db, logger, clock: systemClock, recorder });
  const { apiKey } = await createTenant(db, { slug: 'bench', name: 'Benchmark' });

  const post = (path: string, body: unknown, query = '') =>
    Promise.resolve(
      app.fetch(
        new Request(`http://bench${path}${query}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'service-ingest-source': 'pull' },
          body: JSON.stringify(body),
        }),
      ),
    );
  const load = (i: number, status = 'Booked') => ({
    native_system_load_permalink: `L${i}-bench`,
    native_system_load_id: `L${i}`,
    native_system_load_status: status,
    bol_number: `BOL${i}`,
    customer_name: 'Acme',
  });

  console.log(`tms-ingest bench on ${db.kind}: ${requests} requests per scenario, concurrency ${concurrency}\n`);
  const scenarios: [string, (i: number) => Promise<Response>][] = [
    ['loads: create', (i) => post('/api/v1/loads/upsert', load(i), '?sync_run_time=2026-11-23T10:00:00Z')],
    ['loads: update', (i) => post('/api/v1/loads/upsert', load(i, 'In Transit'), '?sync_run_time=2026-11-23T11:00:00Z')],
    ['loads: skipped (older sync)', (i) => post('/api/v1/loads/upsert', load(i), '?sync_run_time=2026-11-23T09:00:00Z')],
    [
      'load updates: create',
      (i) =>
        post('/api/v1/loadupdates/create', {
          native_system_load_update_permalink: `U${i}-bench`,
          native_system_load_permalink: `L${i}-bench`,
          update_type: 'gps_ping',
          occurred_at: '2026-11-23T10:05:00Z',
          latitude: 41.88,
          longitude: -87.63,
        }),
    ],
  ];
  for (const [name, send] of scenarios) {
    const started = performance.now();
    const latencies = await run(requests, send);
    report(name, latencies, performance.now() - started);
  }

  await recorder.close();
  await drop();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

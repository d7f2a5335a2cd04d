/**
 * One client, single load upserts one after the other: the latency of one write as a TMS sees it, HTTP
 * included, with nothing else running (issue 38's bound compares it between a Citus cluster and plain
 * PostgreSQL on the same machine). Each write is a new load (`bench/data.ts`, numbered from `FIRST`); the first
 * `WARM` are not counted. Run against a started service with a new tenant's slug and key:
 *
 *   SERVICE_URL=http://127.0.0.1:3000 SLUG=… API_KEY=tms_… [COUNT=300] [WARM=50] [FIRST=0] npx tsx bench/sequential-upserts.ts
 */
import { performance } from 'node:perf_hooks';
import * as data from './data.js';

const service = process.env.SERVICE_URL ?? 'http://127.0.0.1:3000';
const { API_KEY: apiKey, SLUG: slug } = process.env;
if (!apiKey || !slug) throw new Error('SLUG and API_KEY are required (see the header of bench/sequential-upserts.ts)');
const count = Number(process.env.COUNT ?? 300);
const warm = Number(process.env.WARM ?? 50);
const first = Number(process.env.FIRST ?? 0);

const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };
const latencies: number[] = [];
for (let i = 0; i < warm + count; i += 1) {
  const started = performance.now();
  const response = await fetch(`${service}/api/v1/loads/upsert`, { method: 'POST', headers, body: JSON.stringify(data.load(slug, first + i)) });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`upsert answered ${response.status}: ${text}`);
  if (i >= warm) latencies.push(performance.now() - started);
}
latencies.sort((a, b) => a - b);
const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!.toFixed(2);
console.log(JSON.stringify({ service, count, p50: at(0.5), p90: at(0.9), p99: at(0.99) }));

/**
 * Summarises a V8 CPU profile (`node --cpu-prof`, e.g. from `npm run bench -- --cpu-prof`): self time by
 * package / source file and by function, and inclusive time of our own functions.
 *
 *   npx tsx bench/profile-summary.ts bench/profiles/CPU.….cpuprofile [--top 40]
 *     [--results bench/results/….json --scenario load-upsert --target service|floor (node|floor (bare]   # that run's measured window only
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: 'string', default: '30' },
    window: { type: 'string' },
    results: { type: 'string' },
    scenario: { type: 'string' },
    target: { type: 'string' },
  },
});
const top = Number(values.top);
const file = positionals[0];
if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [--top n]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

// Only samples inside a window (monotonic µs, the profile's timebase): --window from:to, or the
// measured window of a scenario's service row in a bench result (--results file.json --scenario name).
let window: [number, number] = [-Infinity, Infinity];
if (values.window) window = values.window.split(':').map(Number) as [number, number];
if (values.results) {
  const results = JSON.parse(readFileSync(values.results, 'utf8')) as { rows: { scenario: string; target: string; window: [number, number] }[] };
  const target = values.target ?? 'service';
  const row = results.rows.find((r) => r.target.startsWith(target) && r.scenario === (values.scenario ?? 'load-upsert'));
  if (!row) throw new Error(`no service row for ${values.scenario} in ${values.results}`);
  window = row.window;
}
let at = profile.startTime;
const inWindow = profile.samples.map((_, i) => {
  at += profile.timeDeltas[i] ?? 0;
  return at >= window[0] && at <= window[1];
});
profile.samples = profile.samples.filter((_, i) => inWindow[i]);
profile.timeDeltas = profile.timeDeltas.filter((_, i) => inWindow[i]);

const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);

/** Where a frame comes from: a package name, our source file, node internals, or a V8 pseudo-frame. */
function origin(url: string, name: string): string {
  if (!url) return `(${name || 'anonymous'})`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const ours = /\/(src|bench)\/(.*)$/.exec(url);
  return ours ? `${ours[1]}/${ours[2]}` : url;
}

const add = (map: Map<string, number>, key: string, us: number) => map.set(key, (map.get(key) ?? 0) + us);
const byOrigin = new Map<string, number>();
const byFunction = new Map<string, number>();
for (const [id, us] of selfUs) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  add(byOrigin, origin(url, functionName), us);
  add(byFunction, `${functionName || '(anonymous)'} ${origin(url, functionName)}:${lineNumber + 1}`, us);
}

// Inclusive time of frames from our own code (src/): each sample counts once per distinct frame on its stack.
const inclusive = new Map<string, number>();
profile.samples.forEach((id, i) => {
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const { functionName, url, lineNumber } = byId.get(cur)!.callFrame;
    if (!/\/src\//.test(url) && !/node_modules\/(graphql-yoga|@graphql-yoga|@whatwg-node|@envelop|pino|prom-client|@prisma|@pothos|graphql|zod|pg)\//.test(url))
      continue;
    const key = `${functionName || '(anonymous)'} ${origin(url, functionName)}:${lineNumber + 1}`;
    if (seen.has(key)) continue;
    seen.add(key);
    add(inclusive, key, profile.timeDeltas[i] ?? 0);
  }
});

const pct = (us: number) => `${((us / total) * 100).toFixed(1).padStart(5)} %`;
const print = (title: string, map: Map<string, number>) => {
  console.log(`\n## ${title}`);
  for (const [k, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(us)}  ${(us / 1000).toFixed(0).padStart(7)} ms  ${k}`);
};
console.log(`${file}: ${(total / 1e6).toFixed(1)} s of samples`);
print('self time by origin', byOrigin);
print('self time by function', byFunction);
print('inclusive time (our code and the libraries on the request path)', inclusive);

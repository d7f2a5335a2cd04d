/**
 * `npm run seed -- --key <API key> [--url http://localhost:4000]`: fills the key's tenant with the demo
 * data set, through a running server's public API (works on PGlite and PostgreSQL alike).
 * The key may also come from `TMS_API_KEY`.
 */
import { parseArgs } from 'node:util';
import { describeSeed, seedDemoData } from '../demo/seed.js';

const usage = 'Usage: npm run seed -- --key <API key> [--url http://localhost:4000]   (or TMS_API_KEY=<key>)';

async function main() {
  let values;
  try {
    ({ values } = parseArgs({ options: { key: { type: 'string' }, url: { type: 'string' }, help: { type: 'boolean' } } }));
  } catch (error) {
    console.error(`${(error as Error).message}\n${usage}`);
    process.exit(2);
  }
  if (values.help) return console.log(usage);
  const key = values.key ?? process.env.TMS_API_KEY;
  if (!key) {
    console.error(`No API key given.\n${usage}`);
    process.exit(2);
  }
  const base = (values.url ?? `http://localhost:${process.env.PORT ?? 4000}`).replace(/\/$/, '');
  const summary = await seedDemoData((path, init) => fetch(`${base}${path}`, init), key);
  console.log(`Seeded ${base}: ${describeSeed(summary)}. Open ${base}/graphql to look at them.`);
}

main().catch((error) => {
  console.error(`Seeding failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});

#!/usr/bin/env node
/**
 * `tms-ingest <command> [arguments]` (package.json `bin`): the compiled service and its command-line tools
 * under one name. Run through `npx tms-ingest …`, nothing but the command's own output reaches stdout
 * (no npm banner), so `npx tms-ingest tenant list --json | jq` works.
 */
const commands: Record<string, { module: string; about: string }> = {
  start: { module: '../main.js', about: 'start the service (as npm start)' },
  tenant: { module: './tenant.js', about: 'manage tenants (as npm run tenant --)' },
  push: { module: './push.js', about: 'push records from NDJSON, JSON or CSV files (as npm run push --)' },
  seed: { module: './seed.js', about: 'fill a tenant with demo data (as npm run seed --)' },
  'db:migrate': { module: './db-migrate.js', about: 'apply pending migrations (as npm run db:migrate --)' },
};

const [name, ...args] = process.argv.slice(2);
const command = name === undefined ? undefined : commands[name];
if (!command) {
  const list = Object.entries(commands).map(([key, { about }]) => `  ${key.padEnd(11)} ${about}`);
  const help = name === '--help' || name === '-h';
  (help ? console.log : console.error)(`Usage: tms-ingest <command> [arguments]\n${list.join('\n')}`);
  process.exit(help ? 0 : 2);
}
// Stack traces name the sources, except in push: its peak RSS is some 20 MB lower without the source
// maps of what it loads (docs/explanation/performance/2026-12-02-push.md), and what it says to a person
// is a sentence, not a stack.
if (name !== 'push') process.setSourceMapsEnabled(true);
// The command reads its arguments from process.argv, as when it is run on its own.
process.argv = [process.argv[0]!, process.argv[1]!, ...args];
await import(command.module);

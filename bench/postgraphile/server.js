/**
 * PostGraphile 4 over the bench's database, the yardstick of the load board (`npm run bench -- --only
 * load-board-postgraphile`; docs/decisions/0031-postgraphile-in-the-bench.md). Started by
 * scripts/bench-postgraphile.sh, which installs this folder first; prints `listening <port>` once its
 * schema is built.
 *
 * DATABASE_URL: the database; PORT (default 0: a free port) on 127.0.0.1; DATABASE_POOL_SIZE (default 10,
 * the service's default). Serves the `public` schema read-only (no mutations), as PostGraphile's
 * documented production settings: no query log, no GraphiQL, no watch mode.
 */
import { createServer } from 'node:http';
import process from 'node:process';
import pg from 'pg';
import { postgraphile } from 'postgraphile';
import { makeAddPgTableOrderByPlugin, orderByAscDesc } from 'graphile-utils';

const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL is required');
const pool = new pg.Pool({ connectionString: url, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) });

const middleware = postgraphile(pool, 'public', {
  disableDefaultMutations: true,
  disableQueryLog: true,
  graphiql: false,
  watchPg: false,
  retryOnInitFail: false,
  dynamicJson: true,
  setofFunctionsContainNulls: false,
  legacyRelations: 'omit',
  // Lists beside connections: the board's legs and stops are plain lists, as in the service's schema.
  simpleCollections: 'both',
  // The service orders updates newest first with NULLs last (`occurredAt`, nullable):
  // `OCCURRED_AT_NULLS_LAST_DESC`. PostgreSQL's own default (ascending NULLs last, descending NULLs
  // first) stays for every other order, so `CREATED_AT_DESC, ID_DESC` walks the index the service's
  // board walks (a global NULLs-last option would make PostgreSQL sort the tenant's loads instead).
  appendPlugins: [makeAddPgTableOrderByPlugin('public', 'load_updates', () => orderByAscDesc('OCCURRED_AT_NULLS_LAST', 'occurred_at', { nulls: 'last' }))],
});

// The schema is built at start, not by the first request.
await middleware.getGraphQLSchema();
const server = createServer(middleware);
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : address}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  void pool.end().then(() => process.exit(0));
});

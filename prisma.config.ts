// Used by `npm run generate` only: the service opens its database through driver adapters
// (src/db/client.ts) and applies migrations with src/db/migrate.ts.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
});

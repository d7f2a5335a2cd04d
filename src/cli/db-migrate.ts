/**
 * `npm run db:migrate`: applies pending migrations to DATABASE_URL (or the PGlite database under
 * DATA_DIR), each in one transaction with its record, printing each as it starts.
 * `npm run db:migrate -- --create <name>` writes a new migration from schema.prisma.
 */
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/database.js';
import { createMigration, describeProgress, migrate } from '../db/migrate.js';

const args = process.argv.slice(2);
if (args[0] === '--create') {
  const dir = await createMigration(args[1] ?? 'migration');
  console.log(dir ? `Created ${dir}` : 'The schema matches the migrations: nothing to create.');
} else {
  const config = loadConfig(process.env);
  const db = await openDatabase(config.db);
  try {
    const applied = await migrate(db.adapterFactory, {
      onProgress: (progress) => console.log(describeProgress(progress)),
      onRecovered: (message) => console.log(message),
    });
    console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'The database is up to date.');
  } catch (error) {
    // A migration that fails was rolled back: its message says which and why (no stack trace).
    console.error((error as Error).message);
    process.exitCode = 1;
  } finally {
    await db.close();
  }
}

/**
 * The database half of "adding a kind has no hidden tail" (test/unit/kind-wiring.test.ts): the
 * migrations give every record kind that declares change events the triggers that emit them and keep
 * its load's `lastActivityAt`, and no kind emits events it does not declare.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { recordSpecs } from '../../../src/domain/registry.js';
import { createTestDatabase, type TestDatabase } from '../../setup/database.js';

let database: TestDatabase;
/** Each table's triggers: their function's name and source. */
let triggers: Map<string, { fn: string; source: string }[]>;

beforeAll(async () => {
  database = await createTestDatabase();
  const rows = await database.db.sql.query<{ table: string; fn: string; source: string }>(
    `SELECT c.relname AS "table", p.proname AS fn, p.prosrc AS source
       FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_proc p ON p.oid = t.tgfoid
      WHERE NOT t.tgisinternal`,
    [],
  );
  triggers = new Map();
  for (const row of rows) triggers.set(row.table, [...(triggers.get(row.table) ?? []), row]);
});

afterAll(async () => database?.drop());

describe.each(recordSpecs.map((spec) => [spec.kind, spec] as const))('record kind %s: triggers in prisma/migrations', (kind, spec) => {
  test('a change-event trigger emits each declared event, and only those', () => {
    const events = (triggers.get(spec.table) ?? []).filter((trigger) => trigger.fn.startsWith('load_events_'));
    const emitted = new Set(events.flatMap((trigger) => [...trigger.source.matchAll(/'([a-z_]+\.[a-z_]+)'/g)].map((match) => match[1]!)));
    for (const type of spec.changeEvents) {
      expect(emitted.has(type), `prisma/migrations: no load_events_* trigger on ${spec.table} emits ${type} (declared by ${kind})`).toBe(true);
    }
    expect([...emitted].sort(), `prisma/migrations: triggers on ${spec.table} emit events ${kind} does not declare (changeEvents)`).toEqual(
      [...spec.changeEvents].sort(),
    );
  });

  test("a kind with change events (besides its tombstone's) keeps its load's activity (load_activity_* trigger)", () => {
    const activity = (triggers.get(spec.table) ?? []).some((trigger) => trigger.fn.startsWith('load_activity_'));
    const changes = spec.changeEvents.filter((type) => !type.endsWith('.deleted'));
    expect(activity, `prisma/migrations: ${spec.table} ${changes.length ? 'lacks' : 'has'} a load_activity_* trigger`).toBe(changes.length > 0);
  });
});

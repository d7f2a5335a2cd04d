import { describe, expect, test } from 'vitest';
import { compileTree } from '../../src/domain/load/tree.js';

// The SQL itself is held to Prisma's answers by test/integration/graphql/load-page.test.ts; here: which trees
// the reader takes, and that it declines the rest (the `loads` resolver then asks Prisma).
describe('compileTree', () => {
  test('reads the trees Pothos plans for the board: ordered, limited, filtered on null, to-one and to-many', () => {
    const tree = compileTree(
      'Load',
      'l',
      {
        include: {
          legs: {
            orderBy: [{ sequence: { sort: 'asc', nulls: 'last' } }, { createdAt: 'asc' }],
            include: { load: true, carrier: true, stops: { where: { departedAt: null }, take: 1 } },
          },
          updates: {
            take: 1,
            where: { latitude: { not: null } },
            orderBy: [{ occurredAt: { sort: 'desc', nulls: 'last' } }, { id: 'desc' }],
            select: { latitude: true },
          },
          phaseChanges: { orderBy: [{ changedAt: 'asc' }] },
        },
      },
      '$1',
    );
    expect(tree).not.toBeNull();
    expect(tree!.list).toContain('"load_updates"');
    expect(tree!.list).toMatch(/LIMIT 1\b/);
    // Every nested relation (legs, a leg's load, carrier and stops, updates, phase changes) is read from
    // its table and filtered on the tenant.
    const reads = [...tree!.list.matchAll(/FROM "(\w+)" (t\d+) WHERE (.*?)(?: ORDER BY | LIMIT |\) r\d+)/g)];
    expect(reads.map(([, table]) => table).sort()).toEqual(['carriers', 'load_legs', 'load_updates', 'loads', 'phase_changes', 'stops']);
    for (const [, table, alias, where] of reads) expect(where, table).toContain(`${alias}.tenant_id = $1`);
  });

  test.each([
    ['a where it does not know', { include: { updates: { where: { message: { contains: 'x' } } } } }],
    ['a relation count', { include: { _count: { select: { legs: true } } } }],
    ['a nested cursor', { include: { updates: { cursor: { id: 'x' }, take: 1 } } }],
    ['a negative nested take', { include: { updates: { take: -1 } } }],
    ['an orderBy on a relation', { include: { legs: { orderBy: { carrier: { name: 'asc' } } } } }],
    ['a model outside the board', { include: { tenant: true } }],
  ])('declines %s', (_label, args) => {
    expect(compileTree('Load', 'l', args, '$1')).toBeNull();
  });

  test('decodes DateTime columns (epoch milliseconds) into Dates, nested too', () => {
    const tree = compileTree('Load', 'l', { include: { updates: true } }, '$1')!;
    const row: Record<string, unknown> = { createdAt: 1_700_000_000_123, updates: [{ occurredAt: null, createdAt: 0 }] };
    tree.decode(row);
    expect(row.createdAt).toEqual(new Date(1_700_000_000_123));
    expect(row.updates).toEqual([{ occurredAt: null, createdAt: new Date(0) }]);
  });
});

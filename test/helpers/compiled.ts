/** The statement the compiled reads (src/graphql/compiled-read.ts) run for a query of a tenant: tests EXPLAIN it. */
import { parse } from 'graphql';
import { compileRead } from '../../src/graphql/compiled-read.js';
import { schema } from '../../src/graphql/schema.js';
import type { TenantRef } from '../../src/domain/declaration/tenant-ref.js';

export const compiledStatement = (query: string, variables: Record<string, unknown>, tenant: TenantRef) =>
  compileRead(schema, parse(query), undefined, variables, tenant, { payloadHistory: { days: 0, perRecord: 0 } }, new Date());

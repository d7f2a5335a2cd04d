// Configuration only: no types are defined here (Pothos troubleshooting: avoids circular imports).
import SchemaBuilder from '@pothos/core';
import ComplexityPlugin from '@pothos/plugin-complexity';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import type PrismaTypes from '../db/generated/pothos-types.js';
import { getDatamodel } from '../db/generated/pothos-types.js';
import type { RequestContext } from './context.js';

export const builder = new SchemaBuilder<{
  Context: RequestContext;
  PrismaTypes: PrismaTypes;
  Scalars: { DateTime: { Input: Date; Output: Date }; JSON: { Input: unknown; Output: unknown } };
}>({
  plugins: [ComplexityPlugin, RelayPlugin, PrismaPlugin],
  relay: { clientMutationId: 'omit', cursorType: 'String' },
  complexity: {
    defaultComplexity: 1,
    defaultListMultiplier: 10,
    limit: { complexity: 5000, depth: 10, breadth: 200 },
  },
  prisma: {
    // The client comes from the request's services, not a module singleton: two apps can run side by side.
    client: (ctx) => ctx.services.db.prisma,
    dmmf: getDatamodel(),
    exposeDescriptions: true,
    filterConnectionTotalCount: true,
    onUnusedQuery: process.env.NODE_ENV === 'production' ? null : 'error',
  },
});

builder.queryType({});
builder.mutationType({});
builder.addScalarType('DateTime', DateTimeResolver);
builder.addScalarType('JSON', JSONResolver);

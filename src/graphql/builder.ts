// Configuration only: no types are defined here (Pothos troubleshooting: avoids circular imports).
import SchemaBuilder from '@pothos/core';
import ComplexityPlugin, { ComplexityErrorKind } from '@pothos/plugin-complexity';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import { GraphQLScalarType } from 'graphql';
import { createGraphQLError } from 'graphql-yoga';
import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import { isInDateRange } from '../domain/declaration/fields.js';
import { AppError } from '../errors.js';
import type PrismaTypes from '../db/generated/pothos-types.js';
import { getDatamodel } from '../db/generated/pothos-types.js';
import type { RequestContext } from './context.js';

/** The query limits (complexity, depth, breadth): over them a query is `validation_failed` before anything runs. */
export const complexityLimit = { complexity: 50_000, depth: 10, breadth: 500 } as const;

export const builder = new SchemaBuilder<{
  Context: RequestContext;
  PrismaTypes: PrismaTypes;
  Scalars: { DateTime: { Input: Date; Output: Date }; JSON: { Input: unknown; Output: unknown } };
  // Fields are non-null unless they say `nullable: true`: the contract's `Load!`-style types, and
  // dashboards' generated types stay free of needless null checks.
  DefaultFieldNullability: false;
}>({
  defaultFieldNullability: false,
  plugins: [ComplexityPlugin, RelayPlugin, PrismaPlugin],
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    // No global `node(id)`: every record is reached by its permalink, inside the caller's tenant.
    nodeQueryOptions: false,
    nodesQueryOptions: false,
    pageInfoTypeOptions: { description: 'Where a page sits in its connection.' },
    hasNextPageFieldOptions: { description: 'Whether more items follow this page (pass `endCursor` as `after`).' },
    hasPreviousPageFieldOptions: { description: 'Whether items precede this page.' },
    startCursorFieldOptions: { description: 'Cursor of the first item of the page.' },
    endCursorFieldOptions: { description: 'Cursor of the last item of the page; pass it as `after` for the next page.' },
    cursorFieldOptions: { description: 'Opaque position of this item; pass it as `after` to continue after it.' },
    nodeFieldOptions: { description: 'The item.' },
    // The page size is counted once, on the connection field (`first`), not again per edge.
    edgesFieldOptions: { description: 'The items of this page with their cursors.', complexity: { field: 1, multiplier: 1 } },
    pageInfoFieldOptions: { description: 'Pagination state of this page.' },
    firstArgOptions: { description: 'Page size (default 20, at most 100).' },
    afterArgOptions: { description: 'Return items after this cursor (`pageInfo.endCursor` of the previous page).' },
    lastArgOptions: { description: 'Page size when paging backwards (with `before`).' },
    beforeArgOptions: { description: 'Return items before this cursor.' },
  },
  complexity: {
    defaultComplexity: 1,
    defaultListMultiplier: 10,
    // 50 loads with every field of their legs, carriers, stops, updates and history cost about 25,000.
    limit: complexityLimit,
    // A clear contract error instead of a masked one; nothing of the query runs.
    complexityError: (kind, { depth, complexity, breadth, maxDepth, maxComplexity, maxBreadth }) => {
      const [measure, value, max] =
        kind === ComplexityErrorKind.Depth
          ? ['depth', depth, maxDepth]
          : kind === ComplexityErrorKind.Breadth
            ? ['breadth', breadth, maxBreadth]
            : ['complexity', complexity, maxComplexity];
      return new AppError(
        'validation_failed',
        `The query is too ${kind === ComplexityErrorKind.Depth ? 'deep' : kind === ComplexityErrorKind.Breadth ? 'broad' : 'costly'}: ${measure} ${value}, at most ${max}.`,
        [{ field: 'query', issue: `${measure} ${value} exceeds the maximum ${max}; select fewer nested fields or request smaller pages` }],
      );
    },
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

builder.queryType({ description: "Reads, scoped to the API key's tenant (or, for support engineers, the X-Tenant one)." });
builder.subscriptionType({ description: 'Live data over Server-Sent Events (graphql-sse), scoped like queries.' });
builder.mutationType({ description: "Writes, with the tenant's own API key: the same services as the REST routes." });
/**
 * graphql-scalars' DateTime, narrowed to the instants PostgreSQL stores (years 0001 to 9999 in UTC, as
 * REST's `sync_run_time`): a filter such as `activitySince: "0000-01-01T00:00:00Z"` is a validation
 * error naming the range, not a database error.
 */
const inRange = (date: Date) => {
  if (!isInDateRange(date.toISOString())) throw createGraphQLError('DateTime must lie between the years 0001 and 9999 (UTC)');
  return date;
};
const DateTime = new GraphQLScalarType<Date, Date | string>({
  ...DateTimeResolver.toConfig(),
  parseValue: (value) => inRange(DateTimeResolver.parseValue(value)),
  parseLiteral: (ast, variables) => inRange(DateTimeResolver.parseLiteral(ast, variables)),
});
builder.addScalarType('DateTime', DateTime);
builder.addScalarType('JSON', JSONResolver);

/** The description of every record's `id` (what client caches such as Apollo's key records by). */
export const recordIdDescription =
  'Stable id of the record for client caches (Apollo, urql, Relay stores): it never changes while the record exists and is unique across tenants. Look records up by their permalink.';

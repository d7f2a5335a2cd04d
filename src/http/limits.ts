/**
 * The limits' HTTP side (src/limits/limits.ts decides): sheds new requests with 503 while the service
 * is overloaded and counts the others in flight until answered (the probes `/healthz`, `/readyz` and
 * `/metrics` are neither), runs every request as request work (its database calls go first), remembers each request's client address
 * for failed-key throttling, and charges GraphQL operations: mutations take one record per mutation
 * field from the tenant's ingestion bucket (the one REST uses), queries one from the tenant's query
 * bucket. The REST pipeline charges its own routes (plugin.ts).
 */
import { getOperationAST, Kind, OperationTypeNode, type DocumentNode, type FieldNode } from 'graphql';
import { batchCost } from '../domain/ingestion/operation.js';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import type { RequestContext } from '../graphql/context.js';
import type { Limits } from '../limits/limits.js';
import { clientAddressOf } from '../limits/client-address.js';
import { errorResponse } from './respond.js';
import { asRequestWork } from '../db/database.js';

const addresses = new WeakMap<Request, string>();
const graphqlHeaders = new WeakMap<Request, Record<string, string>>();
/** The probes: never shed, and not load (readiness says whether the service can serve, not how busy it is). */
const neverShed = new Set(['/healthz', '/readyz', '/metrics']);
const admitted = new WeakSet<Request>();

/** The client address of a request (see client-address.ts); `unknown` outside an HTTP server. */
export function clientAddress(request: Request): string {
  return addresses.get(request) ?? 'unknown';
}

/**
 * Records a mutation field writes: what its `inputs` list costs (bulk mutations, as literal or
 * variable: the batch's cost, as REST's bulk routes charge it), else one.
 */
function recordsOf(field: FieldNode, variables: Record<string, unknown> | null | undefined): number {
  const value = field.arguments?.find((a) => a.name.value === 'inputs')?.value;
  if (value?.kind === Kind.LIST) return batchCost(value.values);
  return batchCost(value?.kind === Kind.VARIABLE ? variables?.[value.name.value] : undefined);
}

export function useLimits(limits: Limits, clientAddressHeader: string | null): Plugin {
  return {
    instrumentation: {
      // Every request's database calls go ahead of the service's background calls (embedded database).
      request: (_, handle) => asRequestWork(handle),
    },
    onRequest({ request, url, serverContext, endResponse }) {
      addresses.set(request, clientAddressOf(request, serverContext, clientAddressHeader));
      if (neverShed.has(url.pathname)) return;
      const overloaded = limits.admit({ method: request.method, path: url.pathname });
      if (overloaded) endResponse(errorResponse(overloaded));
      else admitted.add(request);
    },
    async onExecute({ args, setResultAndStopExecution }) {
      const ctx = args.contextValue as Partial<RequestContext>;
      const tenant = ctx.actor?.tenant;
      if (!ctx.actor || !ctx.request) return;
      const operation = getOperationAST(args.document as DocumentNode, args.operationName as string | undefined);
      if (!operation) return;
      let charge;
      if (operation.operation === OperationTypeNode.MUTATION) {
        // The admin key cannot write (mutations answer forbidden), so only tenants are charged.
        if (ctx.actor.kind !== 'tenant' || !tenant) return;
        const fields = operation.selectionSet.selections.filter((s): s is FieldNode => s.kind === Kind.FIELD && !s.name.value.startsWith('__'));
        const records = fields.reduce((sum, field) => sum + recordsOf(field, args.variableValues as Record<string, unknown> | undefined), 0);
        charge = await limits.chargeRecords(tenant, Math.max(1, records));
      } else if (operation.operation === OperationTypeNode.QUERY) {
        const key = ctx.actor.kind === 'admin' ? 'admin' : tenant!.id;
        charge = await limits.chargeQuery(key, ctx.actor.kind === 'admin' ? 'admin' : tenant!.slug);
      } else return;
      graphqlHeaders.set(ctx.request, charge.headers);
      const { error } = charge;
      if (error) setResultAndStopExecution({ errors: [createGraphQLError(error.message, { extensions: error.graphqlExtensions(true) })] });
    },
    onResponse({ request, response }) {
      if (admitted.delete(request)) limits.answered();
      const headers = graphqlHeaders.get(request);
      if (headers) for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
    },
  };
}

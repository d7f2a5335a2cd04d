/**
 * The GraphQL ingestion mutations, one per record kind of the registry (`upsertLoad`,
 * `createLoadUpdate`, …): the twin of http/ingest-route.ts. The input (derived from the kind's zod
 * body) is turned back into the REST body and handed to the kind's ingestion use case, which
 * validates, writes and reports to ingest accounting exactly as for REST; errors carry the same codes.
 */
import { ingestSourceOf } from '../domain/ingest-health/events.js';
import { ingestions } from '../domain/registry.js';
import type { IngestScope, Ingestion } from '../domain/shared/ingest.js';
import type { UpsertOutcome } from '../domain/shared/outcome.js';
import { builder } from './builder.js';
import { writableTenantOf, type RequestContext } from './context.js';
import { zodInput } from './zod-input.js';

const UpsertStatusEnum = builder.enumType('UpsertStatus', {
  description: 'Record-level outcome of an upsert or create.',
  values: {
    PROCESSED: { value: 'processed', description: 'The record was created or updated.' },
    SKIPPED: { value: 'skipped', description: 'The stored record changed after `syncRunTime`; it was kept unchanged.' },
    DUPLICATE: { value: 'duplicate', description: 'The load update was already received; nothing changed.' },
  } as const,
});

const UpsertResult = builder.objectRef<UpsertOutcome>('UpsertResult').implement({
  description: 'What an ingestion mutation did, exactly as the REST route answers it.',
  fields: (t) => ({
    status: t.field({ type: UpsertStatusEnum, description: 'Outcome of the write.', resolve: (o) => o.status }),
    message: t.exposeString('message', { description: 'Human-readable summary of the outcome.' }),
    permalink: t.exposeString('permalink', { description: "The record's permalink." }),
    unknownFields: t.exposeStringList('unknownFields', {
      description: "Fields of the input's `extra` the contract does not name (kept verbatim in `extra`); empty when none.",
    }),
  }),
});

const syncRunTimeDescription = (honoured: boolean) =>
  honoured
    ? 'When the TMS read this data (ISO 8601 UTC), as REST `sync_run_time`: a stored record changed after it is kept and the answer is SKIPPED.'
    : 'Accepted for symmetry with the other upserts and ignored, as REST does for carriers (they have no sync-run guard).';

/** The use case's scope of a mutation: the writing tenant, `Service-Ingest-Source` read as REST reads it. */
function ingestScopeOf(ctx: RequestContext): IngestScope {
  return { db: ctx.services.db, recorder: ctx.services.recorder, tenant: writableTenantOf(ctx), source: 'unspecified', now: ctx.now };
}

/** Adds the ingestion mutation of one record kind. */
function ingestMutation(ingestion: Ingestion) {
  const { spec } = ingestion;
  const input = zodInput(spec.graphql.input, spec.body, {
    description: `A ${spec.label.toLowerCase()}, as the REST \`${spec.body.meta()?.id}\` body.`,
    enumNames: spec.graphql.enumNames,
  });
  // Append-only records have no freshness guard: their mutation takes no `syncRunTime`.
  const takesSyncRunTime = spec.freshness !== 'append_only';
  builder.mutationField(spec.graphql.mutation, (t) =>
    t.field({
      type: UpsertResult,
      description: spec.graphql.description,
      args: {
        input: t.arg({ type: input.type, required: true, description: "The record: the REST body's fields in camelCase." }),
        ...(takesSyncRunTime ? { syncRunTime: t.arg({ type: 'DateTime', description: syncRunTimeDescription(ingestion.honoursSyncRunTime) }) } : {}),
      },
      resolve: async (_root, args, ctx) => {
        const scope = ingestScopeOf(ctx);
        let body: Record<string, unknown>;
        try {
          scope.source = ingestSourceOf(ctx.request.headers.get('service-ingest-source'));
          body = input.toBody(args.input);
        } catch (thrown) {
          ingestion.rejectRequest(scope, thrown, { [spec.permalinkField]: (args.input as Record<string, unknown>)[input.inputField(spec.permalinkField)] });
          throw input.renameFields(thrown);
        }
        const syncRunTime = (args as { syncRunTime?: Date | null }).syncRunTime ?? null;
        return ingestion.ingestOne(scope, body, { syncRunTime }).catch((thrown: unknown) => {
          throw input.renameFields(thrown);
        });
      },
    }),
  );
}

for (const ingestion of ingestions) ingestMutation(ingestion);

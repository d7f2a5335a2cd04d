/**
 * The GraphQL adapter of an ingester, the twin of http/ingest-route.ts: the mutation's input is
 * turned back into the REST body and handed to the same domain ingester (same validation, same
 * single statement, same outcomes and error codes), and the result is reported to ingest accounting
 * with the request's `Service-Ingest-Source`, rejections included.
 */
import { AppError, toAppError } from '../errors.js';
import { parseIngestSource, reportIngest, type ReportedResult } from '../domain/ingest-health/events.js';
import type { Ingester } from '../domain/shared/ingest.js';
import type { UpsertOutcome } from '../domain/shared/outcome.js';
import { writableTenantOf } from '../domain/tenant/graphql.js';
import { builder } from './builder.js';
import { zodInput } from './zod-input.js';

export const UpsertStatusEnum = builder.enumType('UpsertStatus', {
  description: 'Record-level outcome of an upsert or create.',
  values: {
    PROCESSED: { value: 'processed', description: 'The record was created or updated.' },
    SKIPPED: { value: 'skipped', description: 'The stored record changed after `syncRunTime`; it was kept unchanged.' },
    DUPLICATE: { value: 'duplicate', description: 'The load update was already received; nothing changed.' },
  } as const,
});

export const UpsertResult = builder.objectRef<UpsertOutcome>('UpsertResult').implement({
  description: 'What an ingestion mutation did, exactly as the REST route answers it.',
  fields: (t) => ({
    status: t.field({ type: UpsertStatusEnum, description: 'Outcome of the write.', resolve: (o) => o.status }),
    message: t.exposeString('message', { description: 'Human-readable summary of the outcome.' }),
    permalink: t.exposeString('permalink', { description: "The record's permalink." }),
  }),
});

export interface IngestMutationOptions {
  ingester: Ingester;
  input: ReturnType<typeof zodInput>;
  /** Whether `syncRunTime` guards the write (loads, legs, stops; carriers accept and ignore it, as REST does). */
  honoursSyncRunTime: boolean;
  /** Whether the mutation takes a `syncRunTime` argument at all (not `createLoadUpdate`). */
  takesSyncRunTime: boolean;
  description: string;
}

const syncRunTimeDescription = (honoured: boolean) =>
  honoured
    ? 'When the TMS read this data (ISO 8601 UTC), as REST `sync_run_time`: a stored record changed after it is kept and the answer is SKIPPED.'
    : 'Accepted for symmetry with the other upserts and ignored, as REST does for carriers (they have no sync-run guard).';

/** Adds one ingestion mutation calling `ingester.ingest` exactly as the REST route does. */
export function ingestMutation(name: string, { ingester, input, honoursSyncRunTime, takesSyncRunTime, description }: IngestMutationOptions) {
  const { spec } = ingester;
  builder.mutationField(name, (t) =>
    t.field({
      type: UpsertResult,
      description,
      args: {
        input: t.arg({ type: input.type, required: true, description: 'The record: the REST body\'s fields in camelCase.' }),
        ...(takesSyncRunTime ? { syncRunTime: t.arg({ type: 'DateTime', description: syncRunTimeDescription(honoursSyncRunTime) }) } : {}),
      },
      resolve: async (_root, args, ctx) => {
        const tenant = writableTenantOf(ctx);
        const source = parseIngestSource(ctx.request.headers.get('service-ingest-source'));
        const report = (result: ReportedResult) =>
          reportIngest(ctx.services.recorder, { tenant, source: source ?? 'unspecified', kind: spec.kind, at: ctx.now }, [result]);
        const permalink = (args.input as Record<string, unknown>)[input.inputField(spec.permalinkField)];
        try {
          if (!source) {
            throw new AppError('validation_failed', 'Service-Ingest-Source must be pull or webhook.', [
              { field: 'Service-Ingest-Source', issue: 'must be pull or webhook (or left out)' },
            ]);
          }
          const body = input.toBody(args.input as Record<string, unknown>);
          const syncRunTime = honoursSyncRunTime ? ((args as { syncRunTime?: Date | null }).syncRunTime ?? null) : null;
          const outcome = await ingester.ingest({ db: ctx.services.db, tenant, now: ctx.now }, body, { syncRunTime });
          report({ outcome: outcome.status, permalink: outcome.permalink });
          return outcome;
        } catch (thrown) {
          report({ outcome: 'rejected', error: toAppError(thrown), permalink: typeof permalink === 'string' ? permalink : undefined });
          throw input.renameFields(thrown);
        }
      },
    }),
  );
}

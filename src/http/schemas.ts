/** Response, query and header shapes shared by REST routes and the OpenAPI document. */
import { z } from 'zod';
import { errorCodes, type ErrorCode } from '../errors.js';
import { isoDateTime } from '../domain/declaration/fields.js';
import type { Phase } from '../db/generated/prisma/enums.js';
import { phases } from '../domain/status-mapping/service.js';
import { maxClockSkewMs } from '../domain/declaration/validate.js';
import { acceptableRequestId } from './request-id.js';
import { noRouteMessage } from './pages.js';
import { tooLargeMessage } from './request.js';

export const SyncRunTimeQuery = z.object({
  sync_run_time: isoDateTime()
    .optional()
    .meta({
      description:
        "Time the caller's sync run started: ISO 8601, UTC (`2026-11-23T10:00:00Z`; an offset such as `+02:00` is accepted and converted; years 0001–9999). When the stored record " +
        'changed after it, the upsert answers `skipped` and keeps the stored record. Refused (400 `validation_failed`) ' +
        `when more than ${maxClockSkewMs / 60_000} minutes ahead of the service clock.`,
      examples: ['2026-11-23T10:00:00Z'],
    }),
});

/** `sync_run_time` on the routes of kinds without a freshness guard (carriers, load updates): accepted, so one feed can send it everywhere, and ignored. */
export const IgnoredSyncRunTimeQuery = z.object({
  sync_run_time: z
    .string()
    .optional()
    .meta({
      description: 'Accepted and ignored (even an invalid value): this kind has no freshness guard, so the record is always written.',
      examples: ['2026-11-23T10:00:00Z'],
    }),
});

/**
 * `X-Request-Id` as sent: any value HTTP allows in a header (no control byte but tab: Node's parser
 * refuses the request with 400) is accepted; only a sane one becomes the request id.
 */
const RequestIdParameter = z
  .string()
  // eslint-disable-next-line no-control-regex -- the control bytes HTTP refuses in a header are the rule stated
  .regex(/^[^\x00-\x08\x0A-\x1F\x7F]*$/)
  .optional()
  .meta({
    param: {
      id: 'RequestId',
      description:
        'Your id for the request. When it is 1–128 characters of `A-Z a-z 0-9 _ . : -` it becomes the request id, ' +
        'echoed in the `X-Request-Id` response header and on every log line of the request; any other value HTTP ' +
        'allows is ignored and replaced by a new UUID. What HTTP allows, as for every header: visible ASCII, spaces ' +
        'and tabs (bytes beyond ASCII pass as Latin-1); a control byte (U+0000–U+0008, U+000A–U+001F, U+007F) makes ' +
        'the request malformed: 400 `validation_failed` and the connection is closed. The whole header section is ' +
        'limited to 16 KiB (431).',
    },
    examples: ['tms-sync-2026-11-23T10:00:00Z-0001'],
  });

const ServiceIngestSourceParameter = z
  .enum(['pull', 'webhook'])
  .optional()
  .meta({
    param: {
      id: 'ServiceIngestSource',
      description:
        "Which path of the TMS sent the request, so each path's health is monitored separately. Compared " +
        'case-insensitively after trimming; absent counts as `unspecified`; any other value is a 400 `validation_failed`.',
    },
  });

/** Request headers of every route. */
export const RequestHeaders = z.object({ 'X-Request-Id': RequestIdParameter });
/** Request headers of an ingestion route. */
export const IngestHeaders = RequestHeaders.extend({ 'Service-Ingest-Source': ServiceIngestSourceParameter });

/** `X-Request-Id` as answered: on every response, errors included. */
export const RequestIdHeader = z
  .string()
  .regex(acceptableRequestId)
  .meta({
    header: {
      id: 'RequestId',
      description: "The request id: the caller's `X-Request-Id` when it was 1–128 characters of `A-Z a-z 0-9 _ . : -`, else a new UUID. Quote it to support.",
    },
    examples: ['3f0c8a52-5d1e-4d8e-9b1a-6f1f3c2e9a10'],
  });

export const AllowHeader = z.string().meta({ header: { id: 'Allow', description: 'The methods the path takes.' }, examples: ['POST'] });
export const RetryAfterHeader = z
  .int()
  .min(0)
  .meta({ header: { id: 'RetryAfter', description: 'Seconds to wait before retrying.' }, examples: [5] });

/** `"dry_run": true` on the answer of a dry run; absent on a real request's. */
const dryRunFlag = z.literal(true).optional();

export const UpsertResponse = z
  .object({
    status: z.enum(['processed', 'skipped', 'duplicate']).meta({ description: 'Record-level outcome.' }),
    message: z.string().meta({ description: 'Human-readable text.' }),
    permalink: z.string().meta({ description: 'The permalink of the record that was handled.' }),
    unknown_fields: z.array(z.string()).meta({
      description: 'Body fields the contract does not name, kept verbatim in `extra` (a typo shows up here); empty when none.',
    }),
    suggestions: z
      .array(
        z
          .object({
            field: z.string().meta({ description: 'An unknown field as sent (one of `unknown_fields`).' }),
            did_you_mean: z.string().meta({ description: 'The contract field it most likely means: its snake_case name, or the nearest by spelling.' }),
          })
          .meta({ id: 'FieldSuggestion' }),
      )
      .meta({
        description:
          'The `unknown_fields` that look like a contract field (`bolNumber` or `bol_numbr` for `bol_number`), with that field; also named in `message`. Empty when none.',
        examples: [[{ field: 'bol_numbr', did_you_mean: 'bol_number' }]],
      }),
    phase: z
      .enum(phases as [Phase, ...Phase[]])
      .nullable()
      .optional()
      .meta({
        description:
          "Loads and load updates, when written (`processed`): the phase the record's status maps to through the tenant's status mapping " +
          '(`UNMAPPED` when it has none; null for a load update without a status). Absent for other kinds and outcomes.',
      }),
    dry_run: dryRunFlag.meta({
      description: 'Present, `true`, when the request was a dry run (`?dry_run=true`): nothing was written. A bulk answer carries it once, beside `results`.',
    }),
  })
  .meta({ id: 'UpsertResponse' });

export const ErrorResponse = z
  .object({
    error: z.object({
      code: z.enum(errorCodes as [string, ...string[]]),
      message: z.string(),
      details: z.array(z.object({ field: z.string(), issue: z.string() })).optional(),
    }),
  })
  .meta({ id: 'ErrorResponse', description: 'The body of every non-200 answer.' });

/** A bulk request: the records of one kind, in order. */
export const bulkRequestOf = (body: z.ZodType, id: string, maxRecords: number) =>
  z
    .object({
      records: z
        .array(body)
        .min(1)
        .max(maxRecords)
        .meta({ description: `1 to ${maxRecords} records, written as if posted one by one in this order.` }),
    })
    .meta({
      id,
      description: 'The records of one kind; `sync_run_time` and `Service-Ingest-Source` apply to each.',
      examples: ((z.globalRegistry.get(body)?.examples as unknown[] | undefined) ?? []).slice(0, 1).map((record) => ({ records: [record] })),
    });

/** A bulk result's place in the request. */
const bulkIndex = z.int().min(0).meta({ description: "The record's 0-based position in `records`: results come in that order." });

/** A bulk record's outcome: the single route's answer, with the record's `index`. */
const BulkRecordOutcome = UpsertResponse.omit({ dry_run: true })
  .extend({ index: bulkIndex })
  .meta({ id: 'BulkRecordOutcome', description: "A record that was written, skipped or a duplicate: its `index` and the single route's answer." });

/** A bulk record's error: the single route's error body, with the record's `index` and `permalink`. */
const BulkRecordError = z
  .object({
    index: bulkIndex,
    permalink: z.string().optional().meta({
      description: "The record's own permalink field as sent, whenever it was a string (so the failing record is found without counting); absent otherwise.",
    }),
    error: ErrorResponse.shape.error,
  })
  .meta({
    id: 'BulkRecordError',
    description: 'A record rejected alone (nothing of it was written): its `index`, its `permalink` when it sent one, and the error.',
  });

export const BulkResponse = z
  .object({
    dry_run: dryRunFlag.meta({ description: 'Present, `true`, when the request was a dry run (`?dry_run=true`): nothing was written.' }),
    results: z
      .array(z.union([BulkRecordOutcome, BulkRecordError]))
      .meta({ description: "One result per record, in request order: the record's outcome, or the error that rejected it alone." }),
  })
  .meta({ id: 'BulkResponse' });

type Body = Record<string, unknown> | undefined;
const error = (code: ErrorCode, message: string, details?: { field: string; issue: string }[]) => ({
  error: { code, message, ...(details ? { details } : {}) },
});
/** The record's own permalink field in an example body (its first field). */
const ownPermalink = (body: Body) => Object.keys(body ?? {})[0] ?? 'sync_run_time';

/** One realistic error body per code, as the service words it (for the document's examples). */
/** What an example needs to know of its route. */
export interface ExampleRoute {
  path: string;
  maxBodyBytes?: number;
  tooLargeAdvice?: string;
}

export const errorExamples: Record<ErrorCode, (body: Body, label: string, route: ExampleRoute) => unknown> = {
  invalid_json: () => error('invalid_json', 'The body is not valid JSON.'),
  validation_failed: (body) =>
    body
      ? error('validation_failed', `The request is invalid: ${ownPermalink(body)}.`, [
          { field: ownPermalink(body), issue: 'must be <id>-demo: a TMS id, a hyphen, then the tenant slug' },
        ])
      : error('validation_failed', 'Service-Ingest-Source must be pull or webhook.', [
          { field: 'Service-Ingest-Source', issue: 'must be pull or webhook (or left out)' },
        ]),
  unauthenticated: () => error('unauthenticated', 'The X-API-Key header is missing.'),
  tenant_mismatch: () =>
    error('tenant_mismatch', 'company_permalink "acme" is not the tenant of this API key.', [
      { field: 'company_permalink', issue: 'must be demo, the tenant of this API key' },
    ]),
  forbidden: () => error('forbidden', "The support engineers' key is read-only."),
  not_found: () => error('not_found', noRouteMessage('/api/v1/trucks/upsert')),
  method_not_allowed: () => error('method_not_allowed', 'GET is not allowed on /api/v1/loads/upsert; use POST.'),
  // A route without its own limit reads the service's `maxBodyBytes` (1 MiB, config.ts).
  payload_too_large: (_body, _label, route) => error('payload_too_large', tooLargeMessage(route.maxBodyBytes ?? 1_048_576, route.tooLargeAdvice)),
  unsupported_media_type: () => error('unsupported_media_type', 'Content-Type must be application/json (got text/plain).'),
  parent_not_found: (body, label) => {
    const field =
      Object.keys(body ?? {}).find((key, i) => i > 0 && key.endsWith('_permalink') && key !== 'company_permalink') ?? 'native_system_load_permalink';
    const value = body?.[field];
    const permalink = typeof value === 'string' ? value : 'L1-demo';
    return error('parent_not_found', `The ${label.toLowerCase()} references a record that does not exist: ${field}.`, [
      { field, issue: `no record with permalink ${permalink} exists for this tenant` },
    ]);
  },
  rate_limited: () => error('rate_limited', 'Too many records; retry after the Retry-After seconds.'),
  internal: () => error('internal', 'An internal error occurred.'),
  unavailable: () => error('unavailable', 'The database is unreachable; retry shortly.'),
};

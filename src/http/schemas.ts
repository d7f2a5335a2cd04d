/** Response and query shapes shared by REST routes and the OpenAPI document. */
import { z } from 'zod';
import { errorCodes } from '../errors.js';
import { isoDateTime } from '../domain/shared/fields.js';

export const SyncRunTimeQuery = z.object({
  sync_run_time: isoDateTime()
    .optional()
    .meta({
      description:
        'Time the caller\'s sync run started (ISO 8601, UTC). When the stored record changed after it, the upsert answers `skipped` and keeps the stored record.',
    }),
});

export const UpsertResponse = z
  .object({
    status: z.enum(['processed', 'skipped', 'duplicate']).meta({ description: 'Record-level outcome.' }),
    message: z.string().meta({ description: 'Human-readable text.' }),
    permalink: z.string().meta({ description: 'The permalink of the record that was handled.' }),
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
  .meta({ id: 'ErrorResponse' });

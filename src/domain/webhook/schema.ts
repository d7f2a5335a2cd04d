/**
 * Field rules of webhook endpoints (the single source: the GraphQL inputs are typed by hand, their
 * values are checked here) and the delivery policy: event catalogue, retry schedule, time limits.
 */
import { z } from 'zod';
import { validationFailed, type FieldIssue } from '../../errors.js';
import { loadEventTypes } from '../events/catalog.js';

/** The change events an endpoint can subscribe to: the outbox's catalogue (docs/reference/events.md). */
export const webhookEventTypes = loadEventTypes;

const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;

/**
 * Delay before each attempt, by attempt number (Standard Webhooks' reference schedule): the first at
 * once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. After the last, the delivery is FAILED.
 */
export const retryScheduleMs = [0, 5 * second, 5 * minute, 30 * minute, 2 * hour, 5 * hour, 10 * hour, 10 * hour] as const;
export const maxAttempts = retryScheduleMs.length;

/** An endpoint whose every attempt failed for this long is disabled. */
export const disableAfterFailingMs = 5 * 24 * hour;

/** How long the previous secret keeps signing after a rotation. */
export const previousSecretTtlMs = 24 * hour;

const url = z
  .string()
  .max(2000, 'must be at most 2000 characters')
  .refine((value) => {
    try {
      const parsed = new URL(value);
      return (parsed.protocol === 'https:' || parsed.protocol === 'http:') && !parsed.username && !parsed.password && Boolean(parsed.hostname);
    } catch {
      return false;
    }
  }, 'must be an absolute http:// or https:// URL without credentials');

const eventTypes = z
  .array(z.enum(webhookEventTypes, { error: `each must be one of ${webhookEventTypes.join(', ')}` }))
  .min(1, 'must name at least one event type')
  .transform((types) => [...new Set(types)]);

const description = z.string().max(500, 'must be at most 500 characters').nullable();

export const WebhookEndpointInput = z.object({ url, eventTypes, description: description.optional().default(null) });
export const WebhookEndpointPatch = z.object({
  url: url.optional(),
  eventTypes: eventTypes.optional(),
  description: description.optional(),
  enabled: z.boolean().optional(),
});
export type WebhookEndpointInput = z.output<typeof WebhookEndpointInput>;
export type WebhookEndpointPatch = z.output<typeof WebhookEndpointPatch>;

/** Parses with a schema; every offending field in one `validation_failed`. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, prefix = 'input'): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues: FieldIssue[] = parsed.error.issues.map((issue) => ({
    field: [prefix, ...issue.path.filter((p) => typeof p === 'string')].join('.'),
    issue: issue.message,
  }));
  throw validationFailed(issues);
}

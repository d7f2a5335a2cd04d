/**
 * Webhook endpoints of a tenant: create (the secret is returned once), list, update, delete,
 * rotate the secret, replay past deliveries. Every query is scoped to the tenant; an id of another
 * tenant is "not found". Delivery itself is worker.ts.
 */
import { AppError } from '../../errors.js';
import type { Database } from '../../db/database.js';
import { newWebhookSecret } from './signing.js';
import { refusalOf } from './network-guard.js';
import { parseInput, previousSecretTtlMs, WebhookEndpointInput, WebhookEndpointPatch } from './schema.js';

export interface EndpointScope {
  db: Database;
  tenantId: string;
  now: Date;
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: skip the address check (development and tests). */
  allowPrivateNetworks: boolean;
}

const notFound = (id: string) =>
  new AppError('not_found', `No webhook endpoint ${id} in this tenant.`, [{ field: 'id', issue: 'names no webhook endpoint of this tenant' }]);

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The `where` of one endpoint of the tenant: an id that is no UUID names none (the uuid column would
 * refuse it), so it matches nothing rather than failing the query.
 */
export const endpointWhere = (tenantId: string, id: string) => ({ tenantId, id: { in: uuidPattern.test(id) ? [id] : [] } });

/** Refuses URLs that reach private networks (unless allowed), as a validation error on `field`. */
async function assertDeliverable(url: string, allowPrivateNetworks: boolean, field: string) {
  if (allowPrivateNetworks) return;
  const refusal = await refusalOf(new URL(url));
  if (refusal) throw new AppError('validation_failed', `The webhook URL is not allowed: ${refusal}.`, [{ field, issue: refusal }]);
}

/** The tenant's endpoint, or not_found (also for malformed ids and other tenants' endpoints). */
async function findEndpoint(db: Database, tenantId: string, id: string) {
  const endpoint = await db.prisma.webhookEndpoint.findFirst({ where: endpointWhere(tenantId, id) });
  if (!endpoint) throw notFound(id);
  return endpoint;
}

export async function createEndpoint(scope: EndpointScope, input: unknown) {
  const { url, eventTypes, description } = parseInput(WebhookEndpointInput, input);
  await assertDeliverable(url, scope.allowPrivateNetworks, 'input.url');
  const secret = newWebhookSecret();
  const endpoint = await scope.db.prisma.webhookEndpoint.create({
    data: { tenantId: scope.tenantId, url, eventTypes, description, secret, createdAt: scope.now, updatedAt: scope.now },
  });
  return { endpoint, secret };
}

/** Changes the given fields; `enabled: true` re-enables a disabled endpoint (its failure run starts over). */
export async function updateEndpoint(scope: EndpointScope, id: string, patch: unknown) {
  const changes = parseInput(WebhookEndpointPatch, patch);
  if (!Object.values(changes).some((v) => v !== undefined)) {
    throw new AppError('validation_failed', 'The request is invalid: input.', [{ field: 'input', issue: 'must change at least one field' }]);
  }
  if (changes.url !== undefined) await assertDeliverable(changes.url, scope.allowPrivateNetworks, 'input.url');
  const enabled =
    changes.enabled === undefined
      ? {}
      : changes.enabled
        ? { enabled: true, disabledAt: null, disabledReason: null, failingSince: null }
        : { enabled: false, disabledAt: scope.now, disabledReason: 'Disabled by the tenant.' };
  if (!uuidPattern.test(id)) throw notFound(id);
  const { count } = await scope.db.prisma.webhookEndpoint.updateMany({
    where: { id, tenantId: scope.tenantId },
    data: {
      ...(changes.url !== undefined && { url: changes.url }),
      ...(changes.eventTypes !== undefined && { eventTypes: changes.eventTypes }),
      ...(changes.description !== undefined && { description: changes.description }),
      ...enabled,
      updatedAt: scope.now,
    },
  });
  if (!count) throw notFound(id);
  return findEndpoint(scope.db, scope.tenantId, id);
}

/** Deletes the endpoint with its queued and past deliveries. False when there was none. */
export async function deleteEndpoint(db: Database, tenantId: string, id: string): Promise<boolean> {
  if (!uuidPattern.test(id)) return false;
  const { count } = await db.prisma.webhookEndpoint.deleteMany({ where: { id, tenantId } });
  return count > 0;
}

/**
 * A new secret, returned once; the current one becomes the previous secret and keeps signing
 * alongside the new one for 24 hours (receivers accept either signature meanwhile). One conditional
 * UPDATE: two rotations at once each keep the secret they replaced consistent.
 */
export async function rotateSecret(scope: EndpointScope, id: string) {
  if (!uuidPattern.test(id)) throw notFound(id);
  const secret = newWebhookSecret();
  const expires = new Date(scope.now.getTime() + previousSecretTtlMs);
  const updated = await scope.db.sql.query<{ id: string }>(
    `UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_expires_at = $3, secret = $4, updated_at = $5
     WHERE id = $1::uuid AND tenant_id = $2::uuid RETURNING id`,
    [id, scope.tenantId, expires, secret, scope.now],
  );
  if (!updated.length) throw notFound(id);
  return { endpoint: await findEndpoint(scope.db, scope.tenantId, id), secret };
}

/**
 * Queues again every delivery of the endpoint whose event was recorded in [since, until) (until
 * defaults to now), successful or not: same `webhook-id` and body, sent in event order per load, on
 * the usual retry schedule. Returns how many were queued.
 */
export async function replayDeliveries(scope: EndpointScope, id: string, since: Date, until: Date | null | undefined): Promise<number> {
  const end = until ?? scope.now;
  if (end.getTime() <= since.getTime()) {
    throw new AppError('validation_failed', 'The request is invalid: until.', [{ field: 'until', issue: 'must be after since' }]);
  }
  await findEndpoint(scope.db, scope.tenantId, id);
  const rows = await scope.db.sql.query<{ queued: number }>(
    `WITH queued AS (
       INSERT INTO webhook_deliveries (tenant_id, endpoint_id, message_id, event_seq, event_type, load_permalink, body, next_attempt_at, replay, created_at)
       SELECT tenant_id, endpoint_id, message_id, event_seq, event_type, load_permalink, body, $5, true, $5
       FROM webhook_deliveries
       WHERE endpoint_id = $1::uuid AND tenant_id = $2::uuid AND NOT replay AND created_at >= $3 AND created_at < $4
       ORDER BY event_seq
       RETURNING 1)
     SELECT count(*)::int AS queued FROM queued`,
    [id, scope.tenantId, since, end, scope.now],
  );
  return rows[0]?.queued ?? 0;
}

/** The secrets that sign now: the current one, and the previous one until it expires. */
export function signingSecrets(endpoint: { secret: string; previousSecret: string | null; previousSecretExpiresAt: Date | null }, now: Date) {
  const previousValid = endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now;
  return previousValid ? [endpoint.secret, endpoint.previousSecret!] : [endpoint.secret];
}

/** Endpoints that are disabled or whose deliveries currently fail (for ingestHealth). */
export async function troubledEndpoints(db: Database, tenantId: string) {
  return db.prisma.webhookEndpoint.findMany({
    where: { tenantId, OR: [{ enabled: false }, { failingSince: { not: null } }] },
    orderBy: { createdAt: 'asc' },
  });
}

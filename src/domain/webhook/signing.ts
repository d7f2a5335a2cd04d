/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): `webhook-signature` is
 * `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, keyed with the
 * base64-decoded part of the `whsec_…` secret; several signatures are separated by spaces (during a
 * secret rotation, one per valid secret).
 */
import { createHmac, randomBytes } from 'node:crypto';

const prefix = 'whsec_';

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export const newWebhookSecret = () => `${prefix}${randomBytes(32).toString('base64')}`;

/** The `v1,<signature>` of one message under one secret. */
function signatureOf(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(prefix) ? secret.slice(prefix.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/** The three Standard Webhooks headers of one attempt, signed with every given secret. */
export function webhookHeaders(secrets: readonly string[], messageId: string, timestampSeconds: number, body: string) {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((secret) => signatureOf(secret, messageId, timestampSeconds, body)).join(' '),
  };
}

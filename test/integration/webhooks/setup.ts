/**
 * Fixtures for webhook tests: one app per file that may deliver to 127.0.0.1
 * (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true) with the default 15 s attempt time limit (a loaded CI machine answers slowly), a real receiver per test, and
 * GraphQL helpers. Tests drive the app's own worker with `drain()` and walk the retry schedule with
 * the test clock: nothing sleeps.
 */
import type { Api } from '../../helpers/app.js';
import { startReceiver } from '../../helpers/webhook-receiver.js';
import { testWith } from '../../fixtures.js';

export const webhookEnv = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_TIMEOUT_MS: '15000' };

export const test = testWith({ env: webhookEnv }).extend('receiver', async ({ testApp }, { onCleanup }) => {
  testApp.clock.reset();
  const receiver = await startReceiver();
  onCleanup(() => receiver.close());
  return receiver;
});

export { describe, expect } from 'vitest';

export const endpointFields = `id url description eventTypes enabled disabledAt disabledReason failingSince previousSecretExpiresAt createdAt updatedAt`;
const deliveryFields = `id webhookId eventType eventCursor loadPermalink payload state attemptCount nextAttemptAt replay createdAt completedAt
  attempts { attemptedAt httpStatus error durationMs }`;

/** Creates an endpoint over GraphQL; returns its id and secret (throws on errors). */
export async function createEndpoint(api: Api, url: string, eventTypes: string[], description: string | null = null) {
  const res = await api.graphql(`mutation($input: WebhookEndpointInput!) { createWebhookEndpoint(input: $input) { secret endpoint { ${endpointFields} } } }`, {
    input: { url, eventTypes, description },
  });
  if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
  const { secret, endpoint } = res.body.data.createWebhookEndpoint;
  return { id: endpoint.id as string, secret: secret as string, endpoint };
}

/** The endpoint with its newest deliveries (and their attempts). */
export async function endpointWithDeliveries(api: Api, id: string, first = 50, headers?: Record<string, string>) {
  const res = await api.graphql(
    `query($id: ID!, $first: Int) { webhookEndpoint(id: $id) { ${endpointFields} deliveries(first: $first) { ${deliveryFields} } } }`,
    { id, first },
    headers,
  );
  if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
  return res.body.data.webhookEndpoint;
}

/** Sends a GraphQL operation and returns its first error's code (or null). */
export async function errorCode(api: Api, query: string, variables?: Record<string, unknown>, headers?: Record<string, string>) {
  const res = await api.graphql(query, variables, headers);
  return (res.body.errors?.[0]?.extensions?.code as string | undefined) ?? null;
}

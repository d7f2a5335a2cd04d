/**
 * The demo seed's patience (`retryingLater`, src/demo/seed.ts): answers that say "later" (503, 429) are
 * sent again after their Retry-After; any other answer, or the last one once patience runs out, is
 * returned as it is.
 */
import { describe, expect, test } from 'vitest';
import { retryingLater } from '../../src/demo/seed.js';

/** A `send` that gives the listed statuses in turn (then 200), recording each call. */
function answering(...statuses: number[]) {
  const calls: string[] = [];
  const send = (path: string, init: RequestInit) => {
    calls.push(`${path} ${init.body as string}`);
    const status = statuses.shift() ?? 200;
    return Promise.resolve(new Response(JSON.stringify({ status }), { status, headers: status === 200 ? {} : { 'retry-after': '0' } }));
  };
  return { send, calls };
}

describe('retryingLater', () => {
  test('sends a request again, body and all, after 503 and 429 answers until one is not', async () => {
    const { send, calls } = answering(503, 429, 503);
    const res = await retryingLater(send)('/api/v1/loads/upsert', { method: 'POST', body: '{"a":1}' });
    expect(res.status).toBe(200);
    expect(calls).toEqual(Array(4).fill('/api/v1/loads/upsert {"a":1}'));
  });

  test('returns any other answer at once (a 400 or a 500 is not retried)', async () => {
    for (const status of [400, 401, 500]) {
      const { send, calls } = answering(status);
      expect((await retryingLater(send)('/graphql', { body: 'x' })).status).toBe(status);
      expect(calls).toHaveLength(1);
    }
  });

  test('gives up once its patience has run out and returns the last answer', async () => {
    const { send, calls } = answering(503, 503, 503);
    expect((await retryingLater(send, 0)('/graphql', { body: 'x' })).status).toBe(503);
    expect(calls).toHaveLength(1);
  });
});

/** The 413 message tells the sender what to do: the route's advice follows the limit. */
import { describe, expect, test } from 'vitest';
import { readBodyText } from '../../src/http/request.js';

const tooLarge = (advice?: string) => {
  const request = new Request('http://test/api/v1/loads/upsert', { method: 'POST', body: 'x'.repeat(20), headers: { 'content-length': '20' } });
  return readBodyText(request, 10, advice).then(
    () => null,
    (e: Error & { code?: string }) => e,
  );
};

describe('payload_too_large', () => {
  test("states the limit, then the route's advice", async () => {
    const error = await tooLarge('send one record per request, or many to POST /api/v1/loads/bulk_upsert');
    expect(error?.code).toBe('payload_too_large');
    expect(error?.message).toBe('The body is larger than 10 bytes; send one record per request, or many to POST /api/v1/loads/bulk_upsert.');
  });
  test('without advice, states the limit only', async () => {
    expect((await tooLarge())?.message).toBe('The body is larger than 10 bytes.');
  });
});

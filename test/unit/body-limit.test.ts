/** The 413 message tells the sender what to do, and names no route that does not exist. */
import { describe, expect, test } from 'vitest';
import { readBodyText } from '../../src/http/request.js';

describe('payload_too_large', () => {
  test('says to send one record per request, and names no bulk route', async () => {
    const request = new Request('http://test/api/v1/loads/upsert', { method: 'POST', body: 'x'.repeat(20), headers: { 'content-length': '20' } });
    const error = await readBodyText(request, 10).then(
      () => null,
      (e: Error & { code?: string }) => e,
    );
    expect(error?.code).toBe('payload_too_large');
    expect(error?.message).toContain('send one record per request');
    expect(error?.message).not.toMatch(/bulk/i);
  });
});

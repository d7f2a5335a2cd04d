/** The 413 message tells the sender what to do, on a single-record route and on a bulk route alike. */
import { describe, expect, test } from 'vitest';
import { readBodyText } from '../../src/http/request.js';

describe('payload_too_large', () => {
  test('says to send a smaller record, or fewer records per bulk request (bulk routes exist)', async () => {
    const request = new Request('http://test/api/v1/loads/upsert', { method: 'POST', body: 'x'.repeat(20), headers: { 'content-length': '20' } });
    const error = await readBodyText(request, 10).then(
      () => null,
      (e: Error & { code?: string }) => e,
    );
    expect(error?.code).toBe('payload_too_large');
    expect(error?.message).toContain('send a smaller record, or fewer records per request on a bulk route');
    expect(error?.message).not.toContain('one record per request');
  });
});

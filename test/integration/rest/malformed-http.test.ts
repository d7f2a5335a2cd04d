/**
 * HTTP the way a TMS's client library speaks it, over a real socket: keep-alive connections that carry
 * several requests, and requests Node's parser refuses before the app runs (src/http/client-error.ts).
 */
import { describe, expect, test } from '../../fixtures.js';
import { connectTo } from '../../helpers/raw-http.js';

describe('malformed requests on a keep-alive connection', () => {
  test('a control byte in a header after an answered request gets its JSON 400 too; the connection is then closed', async ({ testApp }) => {
    const connection = await connectTo(testApp);

    connection.send('GET /readyz HTTP/1.1\r\nHost: tms\r\n\r\n');
    const first = await connection.next();
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body)).toEqual({ status: 'ready' });

    connection.send('GET /readyz HTTP/1.1\r\nHost: tms\r\nX-Request-Id: \x11\r\n\r\n');
    const second = await connection.next();
    expect(second.status).toBe(400);
    expect(second.head).toMatch(/^content-type: application\/json/im);
    expect(second.head).toMatch(/^x-request-id: [0-9a-f-]{36}$/im);
    expect(JSON.parse(second.body)).toEqual({ error: { code: 'validation_failed', message: expect.stringContaining('not valid HTTP/1.1') } });
    expect(await connection.closed()).toBe('');
  });

  test('the same request on a fresh connection gets the same JSON 400', async ({ testApp }) => {
    const connection = await connectTo(testApp);
    connection.send('GET /readyz HTTP/1.1\r\nHost: tms\r\nX-Request-Id: \x11\r\n\r\n');
    const answer = await connection.next();
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).error.code).toBe('validation_failed');
  });
});

describe('HEAD over a real server', () => {
  test("answers the GET's headers with no body, and the next request on the connection is answered as usual", async ({ testApp }) => {
    const connection = await connectTo(testApp);
    connection.send('GET /api/v1/openapi.json HTTP/1.1\r\nHost: tms\r\n\r\n');
    const get = await connection.next();
    connection.send('HEAD /api/v1/openapi.json HTTP/1.1\r\nHost: tms\r\n\r\nGET /readyz HTTP/1.1\r\nHost: tms\r\n\r\n');
    const head = await connection.next(true);
    expect(head.status).toBe(200);
    expect(head.head).toMatch(/^content-type: application\/json/im);
    expect(/^content-length: (\d+)/im.exec(head.head)?.[1]).toBe(String(Buffer.byteLength(get.body)));
    const next = await connection.next();
    expect(next.status).toBe(200);
    expect(JSON.parse(next.body)).toEqual({ status: 'ready' });
  });
});

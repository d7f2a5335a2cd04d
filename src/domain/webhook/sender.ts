/**
 * One HTTP attempt of a webhook: POST the body with its headers, wait at most `timeoutMs` for the
 * whole answer, never follow a redirect (a 3xx is a failed attempt), and connect only to public
 * addresses unless private networks are allowed. Any 2xx is a success. While tracing is on
 * (observability/tracing.ts), each attempt is a CLIENT span and carries its W3C `traceparent`.
 */
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { tracing } from '../../observability/tracing.js';
import { guardedLookup, hostOf, isPublicAddress, RefusedAddressError } from './network-guard.js';

export interface SendOptions {
  timeoutMs: number;
  allowPrivateNetworks: boolean;
}

export interface AttemptResult {
  ok: boolean;
  /** The receiver's HTTP status; null when no answer arrived. */
  httpStatus: number | null;
  /** Why the attempt failed (null on success). */
  error: string | null;
}

/** Most of a response body that is read (and discarded): receivers need not be chatty. */
const maxResponseBytes = 64 * 1024;

export function sendWebhook(target: string, headers: Record<string, string>, body: string, options: SendOptions): Promise<AttemptResult> {
  const url = new URL(target);
  const tracer = tracing();
  if (!tracer) return attempt(url, headers, body, options);
  const attributes = { 'tms.webhook.id': headers['webhook-id'] };
  return tracer.outgoing(
    { url, method: 'POST', headers, attributes },
    (traced) => attempt(url, traced, body, options),
    (result) => result,
  );
}

function attempt(url: URL, headers: Record<string, string>, body: string, options: SendOptions): Promise<AttemptResult> {
  const host = hostOf(url);
  if (!options.allowPrivateNetworks && isIP(host) && !isPublicAddress(host)) {
    return Promise.resolve({
      ok: false,
      httpStatus: null,
      error: new RefusedAddressError(`${host} is a private, loopback, link-local or reserved address; webhooks only reach public addresses`).message,
    });
  }
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const finish = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const request = transport.request(
      url,
      {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'tms-ingest-webhooks/1',
        },
        // A fresh connection per attempt: every connection goes through the address check.
        agent: false,
        lookup: options.allowPrivateNetworks ? undefined : guardedLookup,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        let received = 0;
        response.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > maxResponseBytes) response.destroy();
        });
        const done = () => {
          const ok = status >= 200 && status < 300;
          const error = ok ? null : status >= 300 && status < 400 ? `HTTP ${status}: redirects are not followed` : `HTTP ${status}`;
          finish({ ok, httpStatus: status, error });
        };
        response.on('end', done);
        response.on('close', done);
        response.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      request.destroy();
      finish({ ok: false, httpStatus: null, error: `no answer within ${options.timeoutMs / 1000} s` });
    }, options.timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => {
      finish({
        ok: false,
        httpStatus: null,
        error: error instanceof RefusedAddressError ? error.message : `${error.code ?? 'error'}: ${error.message}`.slice(0, 1000),
      });
    });
    request.end(body);
  });
}

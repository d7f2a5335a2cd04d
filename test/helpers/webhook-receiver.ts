/**
 * A real HTTP receiver on 127.0.0.1 for webhook tests: records every request (headers, raw body) and
 * answers with what the test's `respond` returns (status, or `hang` to never answer).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The three Standard Webhooks headers, as the `standardwebhooks` package takes them. */
  webhookHeaders: Record<string, string>;
  json: { type: string; timestamp: string; data: any };
}

export type Answer = number | 'hang' | { status: number; headers?: Record<string, string>; delayMs?: number };

export interface WebhookReceiver {
  url: string;
  port: number;
  received: ReceivedWebhook[];
  /** Decides each answer (default 204). */
  respond: (request: ReceivedWebhook, index: number) => Answer;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<WebhookReceiver> {
  const hanging = new Set<() => void>();
  const receiver: WebhookReceiver = {
    url: '',
    port: 0,
    received: [],
    respond: () => 204,
    close: async () => {
      for (const end of hanging) end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const h = req.headers;
      let json: ReceivedWebhook['json'];
      try {
        json = JSON.parse(body);
      } catch {
        json = { type: '', timestamp: '', data: null };
      }
      const request: ReceivedWebhook = {
        path: req.url ?? '/',
        headers: h,
        body,
        json,
        webhookHeaders: {
          'webhook-id': String(h['webhook-id']),
          'webhook-timestamp': String(h['webhook-timestamp']),
          'webhook-signature': String(h['webhook-signature']),
        },
      };
      const index = receiver.received.push(request) - 1;
      const answer = receiver.respond(request, index);
      if (answer === 'hang') {
        const end = () => res.destroy();
        hanging.add(end);
        res.on('close', () => hanging.delete(end));
        return;
      }
      const { status, headers, delayMs } = typeof answer === 'number' ? { status: answer, headers: {}, delayMs: 0 } : answer;
      if (delayMs) setTimeout(() => res.writeHead(status, headers).end(), delayMs);
      else res.writeHead(status, headers).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}`;
  return receiver;
}

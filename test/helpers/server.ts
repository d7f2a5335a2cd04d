/** Serves a test app on a real local port (for clients that need a socket: SSE streams). */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestApp } from './app.js';

export async function listen(testApp: TestApp): Promise<{ base: string; close(): Promise<void> }> {
  const server = createServer((req, res) => void testApp.app(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        testApp.app.services.events.endAll();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

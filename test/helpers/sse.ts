/**
 * A minimal Server-Sent Events client over fetch (what a dashboard does: EventSource cannot send
 * the X-API-Key header): posts a GraphQL subscription with `Accept: text/event-stream` and parses
 * the stream into events and keep-alive comments.
 */
export interface SseMessage {
  event: string;
  data: string;
}

export interface SseSubscription {
  status: number;
  /** The next `event: next` payload (parsed JSON), waiting for it to arrive. */
  next(): Promise<any>;
  /** Resolves once a keep-alive comment line (`:`) arrived after the first one. */
  keepAlive(): Promise<void>;
  /** Every message so far. */
  messages: SseMessage[];
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  /** Why reading the stream failed (a reset connection, or close()), once it has; undefined after a clean end. */
  failure(): unknown;
  close(): Promise<void>;
}

export async function subscribeSse(base: string, apiKey: string, query: string, variables?: Record<string, unknown>): Promise<SseSubscription> {
  const controller = new AbortController();
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': apiKey },
    body: JSON.stringify({ query, variables }),
    signal: controller.signal,
  });
  const messages: SseMessage[] = [];
  const nexts: any[] = [];
  let comments = 0;
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const waiter of [...waiters]) waiter();
  };
  let buffer = '';
  let failure: unknown;
  let endedResolve!: () => void;
  const ended = new Promise<void>((resolve) => (endedResolve = resolve));
  void (async () => {
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const lines = block.split('\n');
          if (lines.every((line) => line.startsWith(':'))) comments++;
          const event = lines
            .find((l) => l.startsWith('event:'))
            ?.slice(6)
            .trim();
          const data = lines
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).trim())
            .join('\n');
          if (event) {
            messages.push({ event, data });
            if (event === 'next') nexts.push(JSON.parse(data));
          }
          notify();
        }
      }
    } catch (error) {
      failure = error; // aborted by close(), or the connection was reset
    } finally {
      endedResolve();
      notify();
    }
  })();
  let read = 0;
  const until = (ready: () => boolean) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (ready()) {
          waiters.delete(check);
          resolve();
        }
      };
      waiters.add(check);
      check();
      void ended.then(() => {
        if (!ready()) {
          waiters.delete(check);
          reject(new Error(`the stream ended; messages: ${JSON.stringify(messages)}`));
        }
      });
    });
  return {
    status: res.status,
    messages,
    ended,
    failure: () => failure,
    async next() {
      await until(() => nexts.length > read);
      return nexts[read++];
    },
    async keepAlive() {
      const seen = comments;
      await until(() => comments > Math.max(seen, 1));
    },
    async close() {
      controller.abort();
      await ended;
    },
  };
}

/**
 * The client address failed-key throttling counts against: the TCP peer's address, or, when
 * CLIENT_ADDRESS_HEADER names a header set by a trusted proxy (e.g. `X-Forwarded-For`), the last
 * address in that header (the one the proxy itself appended). Never trust such a header without a
 * proxy that overwrites or appends it: clients could pick their own address.
 */

/** Yoga's server context under Node's http server carries the IncomingMessage as `req`. */
interface NodeServerContext {
  req?: { socket?: { remoteAddress?: string } };
}

export function clientAddressOf(request: Request, serverContext: unknown, header: string | null): string {
  if (header) {
    const value = request.headers.get(header);
    const last = value?.split(',').at(-1)?.trim();
    if (last) return last.slice(0, 100);
  }
  return (serverContext as NodeServerContext | undefined)?.req?.socket?.remoteAddress ?? 'unknown';
}

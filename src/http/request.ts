/** Reading REST request bodies: content type (415), size (413) and JSON (400 invalid_json). */
import { AppError } from '../errors.js';

const jsonType = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** Rejects a body that is not declared as JSON. */
export function assertJsonContentType(request: Request): void {
  const type = request.headers.get('content-type');
  if (!type || !jsonType.test(type)) {
    throw new AppError('unsupported_media_type', `Content-Type must be application/json (got ${type ?? 'none'}).`);
  }
}

const tooLarge = (maxBytes: number) =>
  new AppError('payload_too_large', `The body is larger than ${maxBytes} bytes; send one record per request or use a bulk route.`);

/**
 * Reads the body as text, at most `maxBytes`: a larger Content-Length is refused before reading, and a
 * body that streams past the limit is cut off.
 */
export async function readBodyText(request: Request, maxBytes: number): Promise<string> {
  const declared = Number(request.headers.get('content-length'));
  if (declared > maxBytes) throw tooLarge(maxBytes);
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Parses a JSON object body. */
export function parseJsonObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError('invalid_json', 'The body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AppError('invalid_json', 'The body must be a JSON object.');
  }
  return value as Record<string, unknown>;
}

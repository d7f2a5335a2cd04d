/**
 * Reading REST requests: the query's parameter names (400 validation_failed), the body's content type
 * (415), size (413) and JSON (400 invalid_json: syntax, UTF-8, depth: `domain/ingestion/json-body.ts`,
 * GraphQL's rules too).
 */
import type { z } from 'zod';
import { AppError, validationFailed } from '../errors.js';
import { createFieldHints } from '../domain/declaration/hints.js';
import { decodeUtf8 } from '../domain/ingestion/json-body.js';

/** How much of an unknown parameter's name an answer repeats. */
const maxEchoedName = 100;

/**
 * The check of a route's query string against the parameters it declares (`Route.query`): each other
 * parameter is named in one 400 `validation_failed`, with the declared one it most likely means (as
 * unknown body fields get: snake_case, or a near miss by edit distance). A typo such as
 * `sync_runtime` would otherwise be ignored, and with it the freshness guard.
 */
export function queryCheck(query: z.ZodObject): (params: URLSearchParams) => void {
  const known = Object.keys(query.shape);
  const hints = createFieldHints({ body: query });
  const takes = `This route takes ${known.join(', ')}.`;
  return (params) => {
    const unknown = [...new Set(params.keys())].filter((name) => !Object.hasOwn(query.shape, name));
    if (!unknown.length) return;
    const issues = unknown.map((sent) => {
      const name = sent.length > maxEchoedName ? `${sent.slice(0, maxEchoedName)}…` : sent;
      const meant = hints.suggest(sent)?.didYouMean;
      return { name, meant, issue: `is not a query parameter of this route${meant ? ` (did you mean ${meant}?)` : ''}` };
    });
    const meant = issues.flatMap((i) => (i.meant ? [`${i.name}: did you mean \`${i.meant}\`?`] : []));
    const sentence = ` Unknown query parameter${issues.length > 1 ? 's' : ''}${meant.length ? `: ${meant.join(' ')}` : ''}. ${takes}`;
    throw validationFailed(
      issues.map((i) => ({ field: i.name, issue: i.issue })),
      sentence,
    );
  };
}

const jsonType = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** Rejects a body that is not declared as JSON. */
export function assertJsonContentType(request: Request): void {
  const type = request.headers.get('content-type');
  if (!type || !jsonType.test(type)) {
    throw new AppError('unsupported_media_type', `Content-Type must be application/json (got ${type ?? 'none'}).`);
  }
}

/** The 413 message: the limit, then what to do instead (the route's `tooLargeAdvice`). */
export const tooLargeMessage = (maxBytes: number, advice?: string) => `The body is larger than ${maxBytes} bytes${advice ? `; ${advice}` : ''}.`;

const tooLarge = (maxBytes: number, advice?: string) => new AppError('payload_too_large', tooLargeMessage(maxBytes, advice));

/**
 * Reads the body as text, at most `maxBytes`: a larger Content-Length is refused before reading, and a
 * body that streams past the limit is cut off.
 */
export async function readBodyText(request: Request, maxBytes: number, tooLargeAdvice?: string): Promise<string> {
  const lengthHeader = request.headers.get('content-length');
  const declared = Number(lengthHeader);
  if (declared > maxBytes) throw tooLarge(maxBytes, tooLargeAdvice);
  if (lengthHeader !== null && Number.isInteger(declared)) {
    // A declared length within the limit (the HTTP parser never delivers more than it): read the body
    // in one go. Yoga's Request collects the socket's chunks directly, without a web stream reader per
    // request (docs/explanation/performance.md); the size is checked again for bodies built in-process.
    // (Yoga's ponyfill answers a Buffer, a native Request an ArrayBuffer.)
    const data: ArrayBuffer | Uint8Array = await request.arrayBuffer();
    const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
    if (bytes.byteLength > maxBytes) throw tooLarge(maxBytes, tooLargeAdvice);
    return decodeUtf8(bytes);
  }
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
      throw tooLarge(maxBytes, tooLargeAdvice);
    }
    chunks.push(value);
  }
  return decodeUtf8(Buffer.concat(chunks));
}

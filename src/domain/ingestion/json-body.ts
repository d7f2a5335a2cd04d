/**
 * The rules of a JSON request body, whichever transport carries it (the REST pipeline, GraphQL's JSON
 * bodies): UTF-8, at most 64 levels of nesting, a JSON object; each broken rule a 400 `invalid_json`.
 */
import { AppError } from '../../errors.js';

// A leading byte order mark is dropped (RFC 8259 §8.1 allows ignoring it); invalid UTF-8 is an error.
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The body bytes as text: UTF-8, as JSON requires. */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new AppError('invalid_json', 'The body is not valid UTF-8.');
  }
}

/** Deepest nesting of objects and arrays a body may have (records are flat; extra fields may nest a little). */
const maxJsonDepth = 64;

/** Nesting depth of a JSON text (brackets outside strings); counted before parsing so no parser recurses deeply. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) max = Math.max(max, ++depth);
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}

/** Parses a JSON object body; a JSON array is answered with the route's `arrayAdvice` (the route or envelope it should have gone to). */
export function parseJsonObject(text: string, arrayAdvice?: string): Record<string, unknown> {
  if (jsonDepth(text) > maxJsonDepth) {
    throw new AppError('invalid_json', `The body nests objects and arrays more than ${maxJsonDepth} levels deep.`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError('invalid_json', 'The body is not valid JSON.');
  }
  if (Array.isArray(value) && arrayAdvice) throw new AppError('invalid_json', `The body is a JSON array; ${arrayAdvice}.`);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AppError('invalid_json', 'The body must be a JSON object.');
  }
  return value as Record<string, unknown>;
}

/**
 * Limits of a GraphQL request before its operation runs, each the client's error in the contract's codes:
 *
 * - A JSON body is read by REST's rules (`domain/ingestion/json-body.ts`): UTF-8 (invalid UTF-8 was decoded as U+FFFD
 *   and stored), at most 64 levels of nesting (deeper variables were stored, and from about 2,000 levels
 *   overflowed the stack), a JSON object: 400 `invalid_json`, as REST answers the same body.
 * - A document nested deeper than any real query (`{ viewer { viewer { … } } }` a few thousand levels)
 *   overflows the recursive parser and validator: its nesting is counted on the text before parsing
 *   (like REST's JSON depth). The complexity plugin's depth limit (10) still applies to what passes.
 * - A document graphql-js gives up validating (`Validation aborted.`: the overlapping-fields rule's
 *   budget, spent by some ten thousand selections of one field) is over the breadth limit by far:
 *   `validation_failed` naming `query`, like the complexity plugin's breadth error.
 */
import type { GraphQLError, Source } from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { AppError } from '../errors.js';
import { decodeUtf8, parseJsonObject } from '../domain/ingestion/json-body.js';

/** The bodies Yoga reads as JSON (`application/json`, `application/graphql+json`). */
const jsonBody = /^application\/(?:graphql\+)?json\s*(?:;|$)/i;

/** A contract error of the HTTP request itself as GraphQL answers it (its own status); anything else (Yoga's 413) as thrown. */
const requestError = (thrown: unknown) =>
  thrown instanceof AppError ? createGraphQLError(thrown.message, { extensions: thrown.graphqlExtensions(true) }) : thrown;

/** graphql-js's message when a validation rule ran out of its budget. */
const validationAborted = 'Validation aborted.';

/** Deepest nesting of `{ [ (` a document may have: far above the query depth limit, far below a stack overflow. */
const maxDocumentNesting = 64;

/** Nesting of braces, brackets and parentheses outside strings and comments. */
function documentNesting(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '#') {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end;
    } else if (c === '{' || c === '[' || c === '(') max = Math.max(max, ++depth);
    else if (c === '}' || c === ']' || c === ')') depth--;
  }
  return max;
}

export function useDocumentLimits(): Plugin {
  return {
    onRequestParse({ request, setRequestParser }) {
      if (request.method !== 'POST' || !jsonBody.test(request.headers.get('content-type') ?? '')) return;
      setRequestParser(async (req) => {
        try {
          // (Yoga's ponyfill answers a Buffer, a native Request an ArrayBuffer.)
          const data: ArrayBuffer | Uint8Array = await req.arrayBuffer();
          return parseJsonObject(decodeUtf8(data instanceof Uint8Array ? data : new Uint8Array(data)));
        } catch (thrown) {
          throw requestError(thrown);
        }
      });
    },
    onValidate() {
      return ({ result, setResult }) => {
        if (!(result as readonly GraphQLError[]).some((error) => error.message === validationAborted)) return;
        setResult([
          createGraphQLError('The query selects too many fields to validate.', {
            extensions: {
              code: 'validation_failed',
              details: [{ field: 'query', issue: 'selects too many fields (far over the breadth limit)' }],
              http: { status: 400 },
            },
          }),
        ]);
      };
    },
    onParse({ params }) {
      const source = params.source as string | Source;
      const text = typeof source === 'string' ? source : source.body;
      if (documentNesting(text) > maxDocumentNesting) {
        throw createGraphQLError(`The query nests more than ${maxDocumentNesting} levels.`, {
          extensions: {
            code: 'validation_failed',
            details: [{ field: 'query', issue: `nests more than ${maxDocumentNesting} levels of { [ (` }],
            http: { status: 400 },
          },
        });
      }
    },
  };
}

/**
 * A GraphQL document nested deeper than any real query (`{ viewer { viewer { … } } }` a few thousand
 * levels) overflows the recursive parser and validator: an INTERNAL_SERVER_ERROR found by the fuzzer.
 * Its nesting is counted on the text before parsing (like REST's JSON depth) and refused as the
 * client's error. The complexity plugin's depth limit (10) still applies to what passes.
 */
import type { Source } from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';

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

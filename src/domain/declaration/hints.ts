/**
 * Hints for common integrator mistakes in a body's field names, derived from the kind's zod body:
 * an unknown field that is a known one in camelCase (`nativeSystemLoadPermalink`: fields are
 * snake_case) or a near miss of one (`bol_numbr`, by edit distance) gets the known field it most
 * likely means. REST answers them in `suggestions` (next to `unknown_fields`), GraphQL in
 * `UpsertResult.suggestions`; the messages name them too.
 */
import { closest, distance } from 'fastest-levenshtein';
import type { z } from 'zod';
import type { RecordSpec } from './record.js';

/** An unknown field and the contract field it most likely means. */
export interface FieldSuggestion {
  /** The field as sent (unknown to the contract). */
  field: string;
  /** The contract field it most likely means. */
  didYouMean: string;
  /** `snake_case`: the same name in camelCase (or another case); `spelling`: a near miss. */
  reason: 'snake_case' | 'spelling';
}

/** `nativeSystemLoadPermalink` → `native_system_load_permalink`, `BOL-Number` → `bol_number`. */
const snakeCase = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[\s-]+/g, '_')
    .toLowerCase();

/**
 * The largest edit distance still taken for a typo of a name of this length: one for short names,
 * two from 8 characters, three from 16 (`bol_numbr` → `bol_number`, never `city` → `state`).
 */
const maxDistance = (length: number) => (length < 8 ? 1 : length < 16 ? 2 : 3);

/** How many field names each kind remembers its answer for (a TMS sends the same extra fields with every record). */
const rememberedNames = 1_000;

/** Compiles the suggester of one record kind (its field list is read once). */
export function createFieldHints(spec: Pick<RecordSpec, 'body'>) {
  const known = Object.keys((spec.body as unknown as z.ZodObject).shape);
  const knownSet = new Set(known);
  const remembered = new Map<string, FieldSuggestion | null>();

  /** The contract field an unknown field most likely means, or null (remembered, so a feed's usual extra fields cost one lookup). */
  function suggest(field: string): FieldSuggestion | null {
    let answer = remembered.get(field);
    if (answer === undefined) {
      answer = compute(field);
      if (remembered.size < rememberedNames) remembered.set(field, answer);
    }
    return answer;
  }

  function compute(field: string): FieldSuggestion | null {
    if (knownSet.has(field)) return null;
    const snake = snakeCase(field);
    if (knownSet.has(snake)) return { field, didYouMean: snake, reason: 'snake_case' };
    // Only names of a plausible length are compared (a long extra field is no typo of a contract field).
    if (snake.length > 64) return null;
    const nearest = closest(snake, known);
    return distance(snake, nearest) <= maxDistance(nearest.length) ? { field, didYouMean: nearest, reason: 'spelling' } : null;
  }

  return {
    /** Suggestions for the unknown fields of a body, in their order (fields without a likely meaning are left out). */
    suggestions: (unknownFields: readonly string[]): FieldSuggestion[] => unknownFields.flatMap((field) => suggest(field) ?? []),
    suggest,
  };
}

export type FieldHints = ReturnType<typeof createFieldHints>;

/**
 * The sentence a message gets for its suggestions ('' when none), naming fields with `name` (REST:
 * the contract's snake_case name, with the note that fields are snake_case; GraphQL: the input's
 * camelCase name, without it).
 */
export function suggestionSentence(suggestions: readonly FieldSuggestion[], name?: (field: string) => string): string {
  if (!suggestions.length) return '';
  const parts = suggestions.map((s) => `${s.field}: did you mean \`${name ? name(s.didYouMean) : s.didYouMean}\`?`);
  const snake = !name && suggestions.some((s) => s.reason === 'snake_case') ? ' Fields are snake_case.' : '';
  return ` Unknown field${suggestions.length > 1 ? 's' : ''} (kept in extra): ${parts.join(' ')}${snake}`;
}

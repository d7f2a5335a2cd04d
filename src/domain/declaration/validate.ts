/**
 * Turns an untrusted body into a record ready to write, applying every field rule of the contract
 * at once: the zod schema (presence, types, max lengths), the tenant rules (`company_permalink` must
 * be the key's tenant → 403; every permalink must end with `-<tenant slug>` → 400) and the
 * `sync_run_time` clock-skew rule. All offending fields are reported together.
 */
import type { z } from 'zod';
import { AppError, validationFailed, type FieldIssue } from '../../errors.js';
import { hasNoNul, isWellFormed, notWellFormed, toWellFormed } from './fields.js';
import { createFieldHints, type FieldSuggestion } from './hints.js';
import type { RecordSpec } from './record.js';
import type { TenantRef } from './tenant-ref.js';

/** `sync_run_time` more than this far ahead of the service clock is rejected. */
export const maxClockSkewMs = 5 * 60 * 1000;

export interface ValidRecord {
  body: Record<string, unknown>;
  /** Fields beyond the contract, kept verbatim. */
  extra: Record<string, unknown>;
}

/** A failed validation: every offending field, and the suggestions for the body's unknown fields (named in the message). */
export type Validation = { ok: true; record: ValidRecord } | { ok: false; issues: FieldIssue[]; suggestions: FieldSuggestion[] };

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What a missing field's issue adds when the body has an unknown field that most likely means it. */
function sentAs(suggestion: FieldSuggestion | undefined): string {
  if (!suggestion) return '';
  return suggestion.reason === 'snake_case'
    ? ` (the body has ${suggestion.field}: fields are snake_case, send it as ${suggestion.didYouMean})`
    : ` (the body has ${suggestion.field}: did you mean ${suggestion.didYouMean}?)`;
}

type Range = { min: number; max: number };

/** The bounds of a number field (`z.number().min(a).max(b)`, wrapped in nullable/optional), or none. */
function rangeOf(schema: z.ZodType): Range | undefined {
  let inner = schema as z.ZodType & { unwrap?: () => z.ZodType; minValue?: number | null; maxValue?: number | null };
  while (typeof inner.unwrap === 'function') inner = inner.unwrap();
  return typeof inner.minValue === 'number' && typeof inner.maxValue === 'number' ? { min: inner.minValue, max: inner.maxValue } : undefined;
}

/** A number's range issue, in our words: the field's whole range when it has one, else the bound it broke. */
function rangeIssue(issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig, range: Range | undefined): string {
  if (range) return `must be between ${range.min} and ${range.max}`;
  return issue.code === 'too_small' ? `must be at least ${String(issue.minimum)}` : `must be at most ${String(issue.maximum)}`;
}

/**
 * A zod issue as the service words it: every kind of issue a body field can have (presence, type,
 * number range, length, date-time format, enum value) gets our sentence, never the validator's.
 */
function describeIssue(
  issue: z.core.$ZodIssue,
  input: Record<string, unknown>,
  nullable: ReadonlySet<string>,
  meant: ReadonlyMap<string, FieldSuggestion>,
  ranges: ReadonlyMap<string, Range>,
): FieldIssue {
  const field = issue.path.map(String).join('.');
  const [key] = issue.path;
  if (issue.code !== 'custom' && issue.path.length === 1 && typeof key === 'string' && !Object.hasOwn(input, key)) {
    // Only a field that takes null may be sent as null (the record's own permalink may not).
    return { field, issue: (nullable.has(key) ? 'is required (send null when unknown)' : 'is required') + sentAs(meant.get(key)) };
  }
  if (issue.code === 'invalid_type' && issue.expected !== 'nullable') {
    return { field, issue: `must be ${issue.expected === 'int' ? 'an integer' : `a ${issue.expected}`} or null` };
  }
  if ((issue.code === 'too_small' || issue.code === 'too_big') && (issue.origin === 'number' || issue.origin === 'int')) {
    return { field, issue: rangeIssue(issue, typeof key === 'string' && issue.path.length === 1 ? ranges.get(key) : undefined) };
  }
  if (issue.code === 'too_big' && issue.origin === 'string') return { field, issue: `must be at most ${String(issue.maximum)} characters` };
  if (issue.code === 'too_small' && issue.origin === 'string') {
    return { field, issue: Number(issue.minimum) === 1 ? 'must not be empty' : `must be at least ${String(issue.minimum)} characters` };
  }
  if (issue.code === 'invalid_value') return { field, issue: `must be one of ${issue.values.map(String).join(', ')}` };
  if (issue.code === 'invalid_format' && issue.format === 'datetime') {
    return { field, issue: 'must be an ISO 8601 date-time with a zone, e.g. 2026-05-01T14:00:00Z' };
  }
  return { field, issue: issue.message };
}

/** One issue per field: the first rule it breaks (type before format before range), in the order found. */
function onePerField(issues: FieldIssue[]): FieldIssue[] {
  const seen = new Set<string>();
  return issues.filter(({ field }) => !seen.has(field) && seen.add(field));
}

/** The permalink fields of a spec: its own, its parents' and any other `*_permalink` field but the tenant slug. */
function permalinkFields(spec: Pick<RecordSpec, 'body'>): string[] {
  const shape = (spec.body as unknown as z.ZodObject).shape;
  return Object.keys(shape).filter((f) => f.endsWith('_permalink') && f !== 'company_permalink');
}

/** Issue for a permalink that is not `<id>-<tenant slug>`, or null when it is. */
export function permalinkIssue(field: string, value: string, slug: string): FieldIssue | null {
  const suffix = `-${slug}`;
  if (value.length > suffix.length && value.endsWith(suffix)) return null;
  return { field, issue: `must be <id>-${slug}: a TMS id, a hyphen, then the tenant slug` };
}

/** Issue for a `sync_run_time` too far in the future, or null. */
export function syncRunTimeIssue(syncRunTime: Date | null | undefined, now: Date): FieldIssue | null {
  if (!syncRunTime || syncRunTime.getTime() - now.getTime() <= maxClockSkewMs) return null;
  return { field: 'sync_run_time', issue: 'is more than 5 minutes ahead of the service clock' };
}

/**
 * Issues for text PostgreSQL cannot store anywhere in the extra fields (keys or string values): NUL
 * characters and lone surrogates (jsonb refuses both), so they are the client's error, named by
 * their path.
 */
export function nulIssues(value: unknown, path = ''): FieldIssue[] {
  if (typeof value === 'string') {
    if (!hasNoNul(value)) return [{ field: path, issue: 'must not contain the NUL character (\\u0000)' }];
    return isWellFormed(value) ? [] : [{ field: path, issue: notWellFormed }];
  }
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) => {
    const field = path ? `${path}.${key}` : key;
    if (!hasNoNul(key)) return [{ field: field.replaceAll('\u0000', '\\u0000'), issue: 'must not contain the NUL character (\\u0000) in its name' }];
    if (!isWellFormed(key)) return [{ field: toWellFormed(field), issue: `${notWellFormed} in its name` }];
    return nulIssues(inner, field);
  });
}

/** Compiles the validator of one record body (a kind's, or its delete's; field lists are computed once). */
export function createValidator(spec: Pick<RecordSpec, 'body'>) {
  const permalinks = permalinkFields(spec);
  const shape = (spec.body as unknown as z.ZodObject).shape as Record<string, z.ZodType>;
  const known = new Set(Object.keys(shape));
  const nullable = new Set(Object.keys(shape).filter((field) => shape[field]!.safeParse(null).success));
  const ranges = new Map<string, Range>();
  for (const [field, schema] of Object.entries(shape)) {
    const range = rangeOf(schema);
    if (range) ranges.set(field, range);
  }
  const hints = createFieldHints(spec);

  return function validateRecord(tenant: TenantRef, input: unknown): Validation {
    if (!isPlainObject(input)) return { ok: false, issues: [{ field: '(body)', issue: 'must be a JSON object' }], suggestions: [] };
    const company = input.company_permalink;
    if (typeof company === 'string' && company !== tenant.slug) {
      throw new AppError('tenant_mismatch', `company_permalink "${company}" is not the tenant of this API key.`, [
        { field: 'company_permalink', issue: `must be ${tenant.slug}, the tenant of this API key` },
      ]);
    }
    const issues: FieldIssue[] = [];
    const parsed = spec.body.safeParse(input);
    // fromEntries defines own properties, so even a key named `__proto__` is kept.
    const extra = Object.fromEntries(Object.entries(input).filter(([key]) => !known.has(key)));
    // Suggestions are looked for here only when the body is wrong (an accepted record's come with its outcome).
    const suggestions = parsed.success ? [] : hints.suggestions(Object.keys(extra));
    if (!parsed.success) {
      const meant = new Map(suggestions.map((s) => [s.didYouMean, s]));
      issues.push(...parsed.error.issues.map((i) => describeIssue(i, input, nullable, meant, ranges)));
    }
    for (const field of permalinks) {
      const value = input[field];
      if (typeof value !== 'string') continue;
      const issue = permalinkIssue(field, value, tenant.slug);
      if (issue) issues.push(issue);
    }
    issues.push(...nulIssues(extra));
    if (issues.length) return { ok: false, issues: onePerField(issues), suggestions: parsed.success ? hints.suggestions(Object.keys(extra)) : suggestions };
    return { ok: true, record: { body: parsed.data as Record<string, unknown>, extra } };
  };
}

/** Throws the 400 for a failed validation. */
export function assertValid(result: Validation): ValidRecord {
  if (!result.ok) throw validationFailed(result.issues);
  return result.record;
}

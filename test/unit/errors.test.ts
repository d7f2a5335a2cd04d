/** How anything thrown maps to a contract error (errors.ts toAppError). */
import { describe, expect, test } from 'vitest';
import { AppError, toAppError } from '../../src/errors.js';

const pgError = (code: string) => Object.assign(new Error(`pg ${code}`), { code });

describe('toAppError', () => {
  test.for(['40P01', '40001'])('PostgreSQL %s (deadlock, serialization failure) is 503 unavailable with Retry-After: 1, not 500', (code) => {
    for (const thrown of [pgError(code), new Error('wrapped', { cause: pgError(code) })]) {
      const error = toAppError(thrown);
      expect([error.code, error.status, error.headers]).toEqual(['unavailable', 503, { 'Retry-After': '1' }]);
      expect(error.message).toMatch(/rolled back .*retry/);
    }
  });

  test('an unreachable database is 503 with Retry-After: 5; other faults are 500 internal; an AppError stays itself', () => {
    expect(toAppError(pgError('ECONNREFUSED')).headers).toEqual({ 'Retry-After': '5' });
    expect(toAppError(pgError('23505')).code).toBe('internal');
    const own = new AppError('not_found', 'No such load.');
    expect(toAppError(own)).toBe(own);
  });
});

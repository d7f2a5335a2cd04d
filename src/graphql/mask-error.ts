import { PothosValidationError } from '@pothos/core';
import { createGraphQLError, maskError as yogaMaskError, type MaskError } from 'graphql-yoga';
import { AppError, toAppError } from '../errors.js';

/** Fields of a GraphQLError; read structurally because the executor's GraphQLError may come from another copy of `graphql` (ESM/CJS). */
type LocatedError = { originalError?: unknown; nodes?: never; path?: readonly (string | number)[] };

/** Pothos rejects connection arguments it cannot use (a malformed cursor, `before` with `after`): the client's error. */
const fromPothos = (error: PothosValidationError) =>
  new AppError('validation_failed', `${error.message}.`, [
    { field: /cursor/i.test(error.message) ? 'after' : 'arguments', issue: error.message },
  ]);

/**
 * Contract errors reach GraphQL clients with `extensions.code` = the REST code (and `details`);
 * database outages become `unavailable`; everything else stays masked by Yoga.
 */
export const maskError: MaskError = (error, message, isDev) => {
  const located = (typeof error === 'object' && error !== null ? error : {}) as LocatedError;
  const thrown = located.originalError ?? error;
  const original = thrown instanceof PothosValidationError ? fromPothos(thrown) : thrown;
  const appError = original instanceof AppError ? original : toAppError(original);
  if (original instanceof AppError || appError.code === 'unavailable') {
    return createGraphQLError(appError.message, {
      nodes: located.nodes,
      path: located.path,
      extensions: { code: appError.code, ...(appError.details ? { details: appError.details } : {}) },
    });
  }
  return yogaMaskError(error, message, isDev);
};

import { PothosValidationError } from '@pothos/core';
import { createGraphQLError, maskError as yogaMaskError, type MaskError, type YogaLogger } from 'graphql-yoga';
import { AppError, toAppError } from '../errors.js';
import type { Logger } from '../logger.js';
import { maxBulkBodyBytes } from '../domain/ingestion/operation.js';

/** Largest /graphql request body: the REST bulk routes' limit, so a 1,000-record bulk mutation fits. */
export const maxGraphqlBodyBytes = maxBulkBodyBytes;

/** Fields of a GraphQLError; read structurally because the executor's GraphQLError may come from another copy of `graphql` (ESM/CJS). */
type LocatedError = {
  originalError?: unknown;
  nodes?: never;
  path?: readonly (string | number)[];
  extensions?: { code?: unknown; http?: { status?: number; headers?: Record<string, string> } };
};

/** Pothos rejects connection arguments it cannot use (a malformed cursor, `before` with `after`): the client's error. */
const fromPothos = (error: PothosValidationError) =>
  new AppError('validation_failed', `${error.message}.`, [{ field: /cursor/i.test(error.message) ? 'after' : 'arguments', issue: error.message }]);

/**
 * The contract error a GraphQL error stands for: the AppError a resolver threw (or a Pothos argument
 * error, the client's), `unavailable` for a database outage; null for anything else (a fault).
 */
function contractErrorOf(error: unknown): AppError | null {
  const located = (typeof error === 'object' && error !== null ? error : {}) as LocatedError;
  // Yoga's body limit (`maxRequestBodySize`) speaks its own code: the contract's is payload_too_large.
  if (located.extensions?.code === 'REQUEST_ENTITY_TOO_LARGE') {
    return new AppError(
      'payload_too_large',
      `The request body is larger than ${maxGraphqlBodyBytes} bytes (5 MiB); send at most 1,000 records per bulk mutation.`,
    );
  }
  const thrown = located.originalError ?? error;
  const original = thrown instanceof PothosValidationError ? fromPothos(thrown) : thrown;
  if (original instanceof AppError) return original;
  const appError = toAppError(original);
  return appError.code === 'unavailable' ? appError : null;
}

/**
 * Contract errors reach GraphQL clients with `extensions.code` = the REST code (and `details`);
 * database outages become `unavailable`; everything else stays masked by Yoga.
 */
export const maskError: MaskError = (error, message, isDev) => {
  const appError = contractErrorOf(error);
  if (!appError) return yogaMaskError(error, message, isDev);
  const located = (typeof error === 'object' && error !== null ? error : {}) as LocatedError;
  // An error of the HTTP request itself (a 413) keeps its status.
  return createGraphQLError(appError.message, { nodes: located.nodes, path: located.path, extensions: appError.graphqlExtensions(located.extensions?.http) });
};

/**
 * Yoga's logger: our logger, except that Yoga logs every error it masks at error level with its
 * stack, client errors included. A client's error (`forbidden`, `validation_failed`, `not_found`,
 * … any 4xx) is logged at info with its code and path, as the REST pipeline treats a 4xx; faults
 * and outages stay at error.
 */
/** What follows a log call's first argument: pino takes a message, then its interpolation values. */
const rest = (args: unknown[]) => args.slice(1) as [msg?: string, ...values: unknown[]];

export function yogaLogger(logger: Logger): YogaLogger {
  return {
    debug: (...args: unknown[]) => logger.debug(args[0], ...rest(args)),
    info: (...args: unknown[]) => logger.info(args[0], ...rest(args)),
    warn: (...args: unknown[]) => logger.warn(args[0], ...rest(args)),
    error: (...args: unknown[]) => {
      const clientError = args.length === 1 ? contractErrorOf(args[0]) : null;
      if (clientError && clientError.status < 500) {
        const path = (args[0] as LocatedError).path?.join('.');
        logger.info({ code: clientError.code, path, error: clientError.message }, 'GraphQL client error');
        return;
      }
      logger.error(args[0], ...rest(args));
    },
  };
}

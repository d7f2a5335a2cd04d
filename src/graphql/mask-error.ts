import { GraphQLError } from 'graphql';
import { createGraphQLError, maskError as yogaMaskError, type MaskError } from 'graphql-yoga';
import { AppError, toAppError } from '../errors.js';

/**
 * Contract errors reach GraphQL clients with `extensions.code` = the REST code (and `details`);
 * database outages become `unavailable`; everything else stays masked by Yoga.
 */
export const maskError: MaskError = (error, message, isDev) => {
  const original = error instanceof GraphQLError ? (error.originalError ?? error) : error;
  const appError = original instanceof AppError ? original : toAppError(original);
  if (original instanceof AppError || appError.code === 'unavailable') {
    return createGraphQLError(appError.message, {
      ...(error instanceof GraphQLError ? { nodes: error.nodes, path: error.path } : {}),
      extensions: { code: appError.code, ...(appError.details ? { details: appError.details } : {}) },
    });
  }
  return yogaMaskError(error, message, isDev);
};

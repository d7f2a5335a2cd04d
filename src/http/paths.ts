/**
 * The paths served outside the REST route list, written once: the REST plugin leaves them to their
 * plugins, metrics label them as themselves, and the request-id plugin logs their access lines
 * (REST routes log their own) at these levels.
 */
export const servicePaths = {
  '/graphql': 'info',
  '/healthz': 'debug',
  '/readyz': 'debug',
  '/metrics': 'debug',
} as const satisfies Record<string, 'info' | 'debug'>;

export type ServicePath = keyof typeof servicePaths;

export const isServicePath = (path: string): path is ServicePath => Object.hasOwn(servicePaths, path);

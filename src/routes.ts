// Every REST route, in one list (the router and the OpenAPI document both read it).
import { carrierRoutes } from './domain/carrier/rest.js';
import { loadRoutes } from './domain/load/rest.js';
import { loadLegRoutes } from './domain/load-leg/rest.js';
import { stopRoutes } from './domain/stop/rest.js';
import { loadUpdateRoutes } from './domain/load-update/rest.js';
import { buildOpenApiDocument, OpenApiDocumentSchema, type OpenApiDocument } from './http/openapi.js';
import { defineRoute, type Route } from './http/route.js';

export const ingestionRoutes: readonly Route[] = [...carrierRoutes, ...loadRoutes, ...loadLegRoutes, ...stopRoutes, ...loadUpdateRoutes];

const openApiRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/openapi.json',
  auth: 'none',
  doc: {
    summary: 'This OpenAPI document',
    description: 'The interface description of the REST API (no API key needed).',
    tags: ['Meta'],
    response: OpenApiDocumentSchema,
  },
  handle: async () => ({ body: openApiDocument }),
});

/** Every route the REST plugin serves. */
export const restRoutes: readonly Route[] = [...ingestionRoutes, openApiRoute];

/** Built once, at start-up. */
export const openApiDocument: OpenApiDocument = buildOpenApiDocument(restRoutes);

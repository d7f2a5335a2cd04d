// Every REST route, in one list (the router, the OpenAPI document and the metrics labels read it).
import { ingestOperations } from './domain/ingestion/operations.js';
import { bulkIngestRoute, ingestRoute } from './http/ingest-route.js';
import { buildOpenApiDocument, OpenApiDocumentSchema, type OpenApiDocument } from './http/openapi.js';
import { defineRoute, type Route } from './http/route.js';

/** The ingestion routes (single and bulk) of every ingestion operation. */
const ingestionRoutes: readonly Route[] = ingestOperations.flatMap((operation) => [ingestRoute(operation), bulkIngestRoute(operation)]);

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

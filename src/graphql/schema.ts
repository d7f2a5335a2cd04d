// The only module that knows every GraphQL domain file; imported by app.ts and print-schema.ts.
import { builder } from './builder.js';
import '../domain/tenant/graphql.js';
import '../domain/carrier/graphql.js';
import '../domain/load/graphql.js';
import '../domain/load-leg/graphql.js';
import '../domain/stop/graphql.js';
import '../domain/load-update/graphql.js';
import '../domain/status-mapping/graphql.js';
import '../domain/ingest-health/graphql.js';

export const schema = builder.toSchema();

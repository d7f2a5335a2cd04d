// The only module that knows every GraphQL domain file; imported by app.ts and print-schema.ts.
import { builder } from './builder.js';
import { guardStringArguments } from './string-arguments.js';
import '../domain/tenant/graphql.js';
import '../domain/carrier/graphql.js';
import '../domain/load/graphql.js';
import '../domain/load/activity-graphql.js';
import '../domain/load-leg/graphql.js';
import '../domain/stop/graphql.js';
import '../domain/load-update/graphql.js';
import '../domain/status-mapping/graphql.js';
import '../domain/ingest-health/graphql.js';
import '../domain/webhook/graphql.js';
import '../domain/events/graphql.js';
import './ingest-mutation.js';

export const schema = guardStringArguments(builder.toSchema());

// The only module that knows every GraphQL domain file; imported by app.ts and cli/print-schema.ts.
import type { RecordKind } from '../domain/registry.js';
import { builder } from './builder.js';
import { guardStringArguments } from './string-arguments.js';
import { guardPageSizes } from './page-sizes.js';
import '../domain/tenant/graphql.js';
import { CarrierObject } from '../domain/carrier/graphql.js';
import { LoadObject } from '../domain/load/graphql.js';
import '../domain/load/activity-graphql.js';
import { LoadLegObject } from '../domain/load-leg/graphql.js';
import { StopObject } from '../domain/stop/graphql.js';
import { LoadUpdateObject } from '../domain/load-update/graphql.js';
import '../domain/status-mapping/graphql.js';
import '../domain/ingest-health/graphql.js';
import '../domain/webhook/graphql.js';
import '../domain/events/graphql.js';
import '../domain/payload-history/graphql.js';
import '../domain/data-quality/graphql.js';
import './ingest-mutation.js';
// What the compiled reads answer (compiled-read.ts): registered by each kind beside its GraphQL file.
import '../domain/load/compiled-graphql.js';
import '../domain/carrier/compiled-graphql.js';
import '../domain/payload-history/compiled-graphql.js';

/**
 * The GraphQL object type of every record kind of the registry (`domain/<kind>/graphql.ts`). A kind
 * added to the registry without its entry here, or an entry for no kind, is a type error: the domain
 * core cannot import its transports, so this list, not the registry, brings each kind's module in.
 */
export const recordObjects = {
  carrier: CarrierObject,
  load: LoadObject,
  load_leg: LoadLegObject,
  stop: StopObject,
  load_update: LoadUpdateObject,
} as const satisfies { readonly [Kind in RecordKind]: { readonly name: string } };

export const schema = guardPageSizes(guardStringArguments(builder.toSchema()));

/** GraphQL request helpers: data when there must be no error, the first error when there must be one. */
import type { GraphQLObjectType } from 'graphql';
import { expect } from 'vitest';
import type { z } from 'zod';
import { recordSpecs, type RecordKind } from '../../src/domain/registry.js';
import { enumDescriptionsOf } from '../../src/domain/declaration/fields.js';
import { enumValueName } from '../../src/graphql/enums.js';
import { schema } from '../../src/graphql/schema.js';
import { camelCase } from '../../src/domain/declaration/fields.js';
import type { Api } from '../helpers/app.js';

/** Body fields whose values are enums (`stop_type`, `update_type`): GraphQL names their values in UPPER_CASE. */
const enumFields = new Set(
  recordSpecs.flatMap((spec) =>
    Object.entries((spec.body as unknown as z.ZodObject).shape as Record<string, z.ZodType>).flatMap(([field, schema]) =>
      enumDescriptionsOf(schema) ? [field] : [],
    ),
  ),
);

/** A REST body as a GraphQL mutation input: the same fields, named in camelCase (`extra` as given), enum values in UPPER_CASE. */
export const toInput = (body: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(body).map(([field, value]) => [
      field === 'extra' ? field : camelCase(field),
      enumFields.has(field) && typeof value === 'string' ? enumValueName(value) : value,
    ]),
  );

export interface GraphQLErrorBody {
  message: string;
  path?: (string | number)[];
  extensions?: { code?: string; details?: { field: string; issue: string }[] };
}

/** Runs an operation that must succeed; returns its data. */
export async function gqlData<T = any>(api: Api, query: string, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<T> {
  const res = await api.graphql(query, variables, headers);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  expect(res.status).toBe(200);
  return res.body.data as T;
}

/** Runs an operation that must fail; returns its first error (and the data, for partial results). */
export async function gqlError(api: Api, query: string, variables?: Record<string, unknown>, headers?: Record<string, string>) {
  const res = await api.graphql(query, variables, headers);
  expect(res.body.errors, JSON.stringify(res.body)).toBeDefined();
  return { error: res.body.errors[0] as GraphQLErrorBody, errors: res.body.errors as GraphQLErrorBody[], data: res.body.data, status: res.status };
}

/** The single-record ingestion mutation of each kind, from the registry (with `$syncRunTime` where the kind takes one). */
export const upsertMutations = Object.fromEntries(
  recordSpecs.map((spec) => {
    const sync = spec.freshness !== 'append_only';
    return [
      spec.kind,
      `mutation ($input: ${spec.graphql.input}!${sync ? ', $syncRunTime: DateTime' : ''}) { ${spec.graphql.mutation}(input: $input${sync ? ', syncRunTime: $syncRunTime' : ''}) { status message permalink } }`,
    ];
  }),
) as Record<RecordKind, string>;

/** Every field of a load with its legs, carriers, stops, updates and phase history. */
export const loadTreeFields = /* GraphQL */ `
  permalink tmsId status phase customerReferenceNumber orderType bolNumber poNumber loadMode customerName tmsUrl extra changedAt createdAt
  legs {
    permalink tmsId sequence loadUniqueKey driverName driverPhone truckNumber trailerNumber carrierRepName carrierRepEmail
    customerRepName customerRepEmail referenceNumber pickupReferenceNumber status extra changedAt
    load { permalink }
    carrier { permalink tmsId name mcNumber dotNumber scac email phone extra changedAt }
    stops {
      permalink tmsId sequence type locationName addressLine1 addressLine2 city state postalCode country latitude longitude timezone
      appointmentStart appointmentEnd arrivedAt departedAt referenceNumber status extra changedAt
    }
  }
  updates(first: 5) { permalink type occurredAt status phase latitude longitude city state country eta message source createdAt }
  phaseHistory { fromPhase toPhase status changedAt }
`;

type Body = Record<string, unknown>;

/**
 * How a record of each kind is read back over GraphQL, as a client reads it, derived from the registry and
 * the schema: through the kind's root field by permalink (`graphql.rootFields`, `loadLeg` for `load_leg`), or,
 * for a kind without one, through the list of its records on its load (`Load.updates` for load updates).
 * Answers the record's `selection`, or null when no such record is read.
 */
const readers: Map<RecordKind, (api: Api, body: Body, selection: string, includeDeleted: boolean) => Promise<Body | null>> = new Map(
  recordSpecs.map((spec) => {
    const permalinkOf = (body: Body) => body[spec.permalinkField] as string;
    const root = spec.graphql.rootFields.find((field) => field === camelCase(spec.kind));
    if (root) {
      const read = async (api: Api, body: Body, selection: string, includeDeleted: boolean) =>
        ((
          await gqlData(api, `query ($p: String!, $d: Boolean) { r: ${root}(permalink: $p, includeDeleted: $d) { ${selection} } }`, {
            p: permalinkOf(body),
            d: includeDeleted,
          })
        ).r ?? null) as Body | null;
      return [spec.kind, read] as const;
    }
    const loadType = schema.getType('Load') as GraphQLObjectType;
    // A list of the kind's object (`[LoadUpdate!]!`), read from the type's name (no `instanceof` across graphql copies).
    const list = Object.values(loadType.getFields()).find((field) => new RegExp(`^\\[${spec.model}!?\\]!?$`).test(String(field.type)));
    if (!list || spec.load === null || spec.load === 'self') throw new Error(`test/factories/graphql.ts: no way to read a ${spec.kind} back over GraphQL`);
    const loadField = spec.load;
    const read = async (api: Api, body: Body, selection: string, includeDeleted: boolean) => {
      const data = await gqlData(
        api,
        `query ($p: String!, $d: Boolean) { load(permalink: $p, includeDeleted: $d) { list: ${list.name}(first: 100) { permalink ${selection} } } }`,
        {
          p: body[loadField],
          d: includeDeleted,
        },
      );
      return ((data.load?.list as Body[] | undefined) ?? []).find((record) => record.permalink === permalinkOf(body)) ?? null;
    };
    return [spec.kind, read] as const;
  }),
);

/** A record read back over GraphQL by the body it was posted with (null when none is read). */
export const readBack = (api: Api, kind: RecordKind, body: Body, selection = 'permalink', { includeDeleted = false } = {}) =>
  readers.get(kind)!(api, body, selection, includeDeleted);

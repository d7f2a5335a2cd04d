/**
 * Enums shared by several GraphQL types. `sharedEnum` lets the zod-derived inputs and the output
 * types use one GraphQL enum per name (a stop's `type` and `StopInput.stop_type` are both `StopType`).
 */
import { Phase as Phases, type Phase } from '../db/generated/prisma/enums.js';
import type { IngestSourceName } from '../domain/ingest-health/report.js';
import { builder } from './builder.js';

const phaseDescriptions: Record<keyof typeof Phases, string> = {
  PLANNED: 'Planned: not yet covered by a carrier.',
  COVERED: 'Covered: a carrier is booked.',
  DISPATCHED: 'Dispatched to the carrier.',
  AT_PICKUP: 'At the pickup.',
  IN_TRANSIT: 'In transit.',
  AT_DELIVERY: 'At the delivery.',
  DELIVERED: 'Delivered.',
  COMPLETED: 'Completed: paperwork closed.',
  CANCELLED: 'Cancelled.',
  UNMAPPED: "The TMS status has no mapping yet (see `statusMappings` and ingest health's `unmappedStatuses`).",
};

export const PhaseEnum = builder.enumType('Phase', {
  description: "Phase of a load, translated from the TMS status by the tenant's status mapping.",
  values: Object.fromEntries(Object.values(Phases).map((phase) => [phase, { value: phase, description: phaseDescriptions[phase] }])) as Record<
    Phase,
    { value: Phase; description: string }
  >,
});

export const IngestSourceEnum = builder.enumType('IngestSource', {
  description: 'The ingestion path a request came by, from its `Service-Ingest-Source` header.',
  values: {
    PULL: { value: 'pull', description: 'The TMS integration polls the TMS and posts what it finds (`Service-Ingest-Source: pull`).' },
    WEBHOOK: { value: 'webhook', description: 'The TMS pushed a change as it happened (`Service-Ingest-Source: webhook`).' },
    UNSPECIFIED: { value: 'unspecified', description: 'Requests without a `Service-Ingest-Source` header.' },
  } satisfies Record<string, { value: IngestSourceName; description: string }>,
});

const enums = new Map<string, { values: Record<string, string>; ref: ReturnType<typeof createEnum> }>();

/** `check_call` → `CHECK_CALL`: GraphQL enum values are UPPER_CASE; the REST wire value stays as it is. */
export const enumValueName = (value: string) => value.toUpperCase().replace(/[^A-Z0-9_]/g, '_');

function createEnum(name: string, values: Record<string, string>, description: string) {
  return builder.enumType(name, {
    description,
    values: Object.fromEntries(Object.entries(values).map(([value, about]) => [enumValueName(value), { value, description: about }])),
  });
}

/**
 * The GraphQL enum `name` for these wire values (value → description), created once (a second call
 * must name the same values). Its values are the UPPER_CASE names; resolvers and inputs see the wire
 * values (`PICKUP` ↔ `pickup`).
 */
export function sharedEnum(name: string, values: Record<string, string>, description: string) {
  const known = enums.get(name);
  if (known) {
    if (Object.keys(known.values).join() !== Object.keys(values).join()) throw new Error(`GraphQL enum ${name} is defined with two value lists.`);
    return known.ref;
  }
  const ref = createEnum(name, values, description);
  enums.set(name, { values, ref });
  return ref;
}

/** The shared enum created under `name` (an enum column's GraphQL type); throws when none was. */
export function sharedEnumNamed(name: string) {
  const known = enums.get(name);
  if (!known) throw new Error(`No GraphQL enum ${name} was created (sharedEnum) before the object types' fields were built.`);
  return known.ref;
}

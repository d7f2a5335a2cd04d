import { builder, recordIdDescription } from '../../graphql/builder.js';
import { PhaseEnum, sharedEnum } from '../../graphql/enums.js';
import { loadUpdateRecord, loadUpdateTypes } from './schema.js';
import { describeStoredField } from '../shared/record.js';

/** Descriptions of the stored contract fields, from their zod fields (`schema.ts`). */
const describe = (name: string) => describeStoredField(loadUpdateRecord, name);

const LoadUpdateTypeEnum = sharedEnum('LoadUpdateType', loadUpdateTypes, 'Kind of update (REST `update_type`: `check_call`, `gps_ping` or `status_remark`).');

export const LoadUpdateObject = builder.prismaObject('LoadUpdate', {
  description: 'A check call, GPS ping or status remark on a load. Append-only.',
  fields: (t) => ({
    id: t.exposeID('id', { description: recordIdDescription }),
    permalink: t.exposeString('permalink', { description: describe('permalink') }),
    type: t.expose('type', { type: LoadUpdateTypeEnum, nullable: true, description: describe('type') }),
    occurredAt: t.expose('occurredAt', { type: 'DateTime', nullable: true, description: describe('occurredAt') }),
    status: t.exposeString('status', { nullable: true, description: describe('status') }),
    phase: t.expose('phase', {
      type: PhaseEnum,
      nullable: true,
      description:
        "Phase translated from `status` by the tenant's status mapping; null when the update has no status (a GPS ping). The load's own phase follows the load upsert.",
    }),
    latitude: t.exposeFloat('latitude', { nullable: true, description: describe('latitude') }),
    longitude: t.exposeFloat('longitude', { nullable: true, description: describe('longitude') }),
    city: t.exposeString('city', { nullable: true, description: describe('city') }),
    state: t.exposeString('state', { nullable: true, description: describe('state') }),
    country: t.exposeString('country', { nullable: true, description: describe('country') }),
    eta: t.expose('eta', { type: 'DateTime', nullable: true, description: describe('eta') }),
    message: t.exposeString('message', { nullable: true, description: describe('message') }),
    source: t.exposeString('source', { nullable: true, description: describe('source') }),
    extra: t.expose('extra', { type: 'JSON', description: 'Fields the TMS sent beyond the contract, kept verbatim.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the service received it.' }),
  }),
});

import { builder, recordIdDescription } from '../../graphql/builder.js';
import { PhaseEnum, sharedEnum } from '../../graphql/enums.js';
import { loadUpdateTypes } from './schema.js';

const LoadUpdateTypeEnum = sharedEnum('LoadUpdateType', loadUpdateTypes, 'Kind of update (REST `update_type`: `check_call`, `gps_ping` or `status_remark`).');

export const LoadUpdateObject = builder.prismaObject('LoadUpdate', {
  description: 'A check call, GPS ping or status remark on a load. Append-only.',
  fields: (t) => ({
    id: t.exposeID('id', { description: recordIdDescription }),
    permalink: t.exposeString('permalink', { description: '`native_system_load_update_permalink`: `<update id>-<company_permalink>`.' }),
    type: t.expose('type', { type: LoadUpdateTypeEnum, nullable: true, description: 'Kind of update.' }),
    occurredAt: t.expose('occurredAt', { type: 'DateTime', nullable: true, description: 'When it happened in the field.' }),
    status: t.exposeString('status', { nullable: true, description: 'Status reported with the update, as the TMS names it.' }),
    phase: t.expose('phase', {
      type: PhaseEnum,
      nullable: true,
      description:
        "Phase translated from `status` by the tenant's status mapping; null when the update has no status (a GPS ping). The load's own phase follows the load upsert.",
    }),
    latitude: t.exposeFloat('latitude', { nullable: true, description: 'Reported latitude.' }),
    longitude: t.exposeFloat('longitude', { nullable: true, description: 'Reported longitude.' }),
    city: t.exposeString('city', { nullable: true, description: 'Reported city.' }),
    state: t.exposeString('state', { nullable: true, description: 'Reported state or province.' }),
    country: t.exposeString('country', { nullable: true, description: 'Reported country.' }),
    eta: t.expose('eta', { type: 'DateTime', nullable: true, description: 'Estimated arrival at the next stop.' }),
    message: t.exposeString('message', { nullable: true, description: 'Remark text.' }),
    source: t.exposeString('source', { nullable: true, description: 'Who reported it (driver app, ELD, dispatcher…).' }),
    extra: t.expose('extra', { type: 'JSON', description: 'Fields the TMS sent beyond the contract, kept verbatim.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the service received it.' }),
  }),
});

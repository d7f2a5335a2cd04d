import { builder, recordIdDescription } from '../../graphql/builder.js';
import { PhaseEnum, sharedEnum } from '../../graphql/enums.js';
import { loadUpdateRecord, loadUpdateTypes } from './schema.js';
import { storedFields } from '../../graphql/stored-fields.js';

// The type of the update's stored `type` (graphql/stored-fields.ts finds it by the column's type name).
sharedEnum('LoadUpdateType', loadUpdateTypes, 'Kind of update (REST `update_type`: `check_call`, `gps_ping` or `status_remark`).');

export const LoadUpdateObject = builder.prismaObject('LoadUpdate', {
  description: 'A check call, GPS ping or status remark on a load. Append-only.',
  fields: (t) => ({
    id: t.exposeID('id', { description: recordIdDescription }),
    ...storedFields(t, loadUpdateRecord),
    phase: t.expose('phase', {
      type: PhaseEnum,
      nullable: true,
      description:
        "Phase translated from `status` by the tenant's status mapping; null when the update has no status (a GPS ping). The load's own phase follows the load upsert.",
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the service received it.' }),
  }),
});

import { fullBodies, routes } from '../../factories/records.js';
import { carrierFields } from './contract.js';
import { describeFieldRules } from './field-rules.js';
import { describeUpsertBehaviour } from './upsert-behaviour.js';

describeFieldRules({ route: routes.carrier, fields: carrierFields, validBody: async (_api, tenant) => fullBodies.carrier(tenant) });

describeUpsertBehaviour({
  route: routes.carrier,
  permalinkField: 'native_system_carrier_permalink',
  validBody: async (_api, tenant) => fullBodies.carrier(tenant),
  rows: (testApp, permalink) => testApp.database.db.prisma.carrier.findMany({ where: { permalink } }),
  optional: { field: 'mc_number', column: 'mcNumber', value: 'MC-CHANGED' },
  syncRunTime: false,
});

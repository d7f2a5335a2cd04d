import { describe, expect, test } from '../../fixtures.js';
import { fullBodies, routes, seedParents } from '../../factories/records.js';
import { stopFields } from './contract.js';
import { describeFieldRules } from './field-rules.js';

describeFieldRules({
  route: routes.stop,
  fields: stopFields,
  validBody: async (api, tenant) => fullBodies.stop(tenant, (await seedParents(api, tenant)).leg),
  nullParentStatus: { native_system_load_leg_permalink: 422 },
});

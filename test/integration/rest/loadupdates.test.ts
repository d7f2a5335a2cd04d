import { describe, expect, test } from '../../fixtures.js';
import { fullBodies, routes, seedParents } from '../../factories/records.js';
import { loadUpdateFields } from './contract.js';
import { describeFieldRules } from './field-rules.js';

describeFieldRules({
  route: routes.loadUpdate,
  fields: loadUpdateFields,
  validBody: async (api, tenant) => {
    const { load, leg } = await seedParents(api, tenant);
    return fullBodies.loadUpdate(tenant, load, leg);
  },
  nullParentStatus: { native_system_load_permalink: 422 },
});

import { describe, expect, test } from '../../fixtures.js';
import { fullBodies, routes, seedParents } from '../../factories/records.js';
import { loadLegFields } from './contract.js';
import { describeFieldRules } from './field-rules.js';

describeFieldRules({
  route: routes.loadLeg,
  fields: loadLegFields,
  validBody: async (api, tenant) => {
    const { load, carrier } = await seedParents(api, tenant);
    return fullBodies.loadLeg(tenant, load, carrier);
  },
  nullParentStatus: { native_system_load_permalink: 200 },
});

import { describe, expect, test } from '../../fixtures.js';
import { fullBodies, routes } from '../../factories/records.js';
import { carrierFields } from './contract.js';
import { describeFieldRules } from './field-rules.js';

describeFieldRules({ route: routes.carrier, fields: carrierFields, validBody: async (_api, tenant) => fullBodies.carrier(tenant) });

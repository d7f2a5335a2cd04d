import type { Api } from '../helpers/app.js';
import { carrierBody, loadBody, loadLegBody } from '../factories/records.js';

/** A little data for the GraphiQL screenshot. */
export async function seedExample(api: Api, tenant: { slug: string }) {
  const carrier = carrierBody(tenant, { carrier_name: 'Fast Freight' });
  const load = loadBody(tenant);
  await api.post('/api/v1/carriers/upsert', carrier);
  await api.post('/api/v1/loads/upsert', load);
  await api.post('/api/v1/loadlegs/upsert', loadLegBody(tenant, load, { native_system_carrier_permalink: carrier.native_system_carrier_permalink }));
}

import { ingestRoute } from '../../http/ingest-route.js';
import { loadLegIngester } from './service.js';

export const loadLegRoutes = [
  ingestRoute({
    path: '/api/v1/loadlegs/upsert',
    ingester: loadLegIngester,
    syncRunTime: true,
    summary: 'Upsert a load leg',
    description: 'Creates or updates one leg with its carrier, driver and rep assignments. The parent load (and the carrier, when named) must exist.',
  }),
];

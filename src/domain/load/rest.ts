import { ingestRoute } from '../../http/ingest-route.js';
import { loadIngester } from './service.js';

export const loadRoutes = [
  ingestRoute({
    path: '/api/v1/loads/upsert',
    ingester: loadIngester,
    syncRunTime: true,
    summary: 'Upsert a load',
    description: 'Creates or updates one load. Create the load before its legs and stops.',
  }),
];

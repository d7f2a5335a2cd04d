import { ingestRoute } from '../../http/ingest-route.js';
import { stopIngester } from './service.js';

export const stopRoutes = [
  ingestRoute({
    path: '/api/v1/stops/upsert',
    ingester: stopIngester,
    syncRunTime: true,
    summary: 'Upsert a stop',
    description: 'Creates or updates one pickup or delivery. The parent leg must exist.',
  }),
];

import { ingestRoute } from '../../http/ingest-route.js';
import { loadUpdateIngester } from './service.js';

export const loadUpdateRoutes = [
  ingestRoute({
    path: '/api/v1/loadupdates/create',
    ingester: loadUpdateIngester,
    syncRunTime: false,
    summary: 'Create a load update',
    description: 'Appends one check call, GPS ping or status remark. A repeated permalink answers duplicate and changes nothing.',
  }),
];

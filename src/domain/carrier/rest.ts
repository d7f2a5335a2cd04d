import { ingestRoute } from '../../http/ingest-route.js';
import { carrierIngester } from './service.js';

export const carrierRoutes = [
  ingestRoute({
    path: '/api/v1/carriers/upsert',
    ingester: carrierIngester,
    syncRunTime: false,
    summary: 'Upsert a carrier',
    description: 'Creates or updates one carrier by native_system_carrier_permalink.',
  }),
];

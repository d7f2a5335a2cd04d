/** The event maintenance of a test app, run by hand (`intervalMs: 0`): tests call `runOnce`. */
import { createEventMaintenance } from '../../src/domain/events/maintenance.js';
import { createLogger } from '../../src/logger.js';
import type { TestApp } from './app.js';

export const eventMaintenanceOf = (testApp: TestApp, retention: { retentionMs: number; deletedRetentionMs?: number }) =>
  createEventMaintenance({
    db: testApp.database.db,
    sequencer: testApp.app.services.sequencer,
    clock: testApp.clock,
    logger: createLogger('silent'),
    recorder: testApp.app.services.recorder,
    ...retention,
    degradedRejectionRate: 0.2,
    intervalMs: 0,
  });

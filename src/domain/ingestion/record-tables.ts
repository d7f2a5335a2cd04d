/**
 * Each record kind's table as the write statements see it (`tableOf`), derived from the kinds'
 * declarations in the registry: its columns, its events' fields, its chain up to its load and the
 * tables its delete cascades to. The one place the database side of a kind comes from.
 */
import type { RecordTable } from '../../db/record-table.js';
import { recordSpecs } from '../registry.js';
import { tableOf, type RecordSpec } from '../declaration/record.js';

/** The table of a kind of the registry. */
export const recordTableOf = (spec: RecordSpec): RecordTable => tableOf(spec, recordSpecs);

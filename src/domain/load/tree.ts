/**
 * The relation reader and the where compiler of the SQL load page (`page.ts`, `db/json-tree.ts`) over the record kinds'
 * tables, from the registry (each kind's `model` and `table`), and the load's own phase history.
 */
import { treeCompiler, whereCompiler } from '../../db/json-tree.js';
import { recordSpecs } from '../registry.js';

export const treeTables: Readonly<Record<string, string>> = {
  ...Object.fromEntries(recordSpecs.map((spec) => [spec.model, spec.table])),
  PhaseChange: 'phase_changes',
  LoadActivity: 'load_activity',
};

export const compileTree = treeCompiler(treeTables);

/** Conditions on the same tables: the load filter's one definition (`loadFilterWhere`) as SQL. */
export const compileWhere = whereCompiler(treeTables);

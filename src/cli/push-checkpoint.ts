/**
 * `push --resume`: a checkpoint written after each acknowledged batch (written to a temporary file,
 * then renamed over the checkpoint: a kill leaves the previous one or the next, never half of one;
 * in the background, see checkpointWriter).
 * It holds, per input file, the records acknowledged (ranges of their indexes: batches finish out of
 * order when several are in flight), the counts of their outcomes and the length of the rejects file
 * at that point. A resumed push skips the acknowledged records, truncates the rejects file to that
 * length (rejects of batches acknowledged after the last checkpoint are written again when their batch
 * is resent) and keeps the first run's `sync_run_time`: the end state is that of one uninterrupted push.
 */
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';

export interface Counts {
  processed: number;
  skipped: number;
  duplicate: number;
  rejected: number;
}

export const noCounts = (): Counts => ({ processed: 0, skipped: 0, duplicate: 0, rejected: 0 });

export interface FileState {
  /** The input's size and modification time when the push started: a changed file is not resumed. */
  size: number;
  mtimeMs: number;
  /** Acknowledged record indexes, as sorted, disjoint `[first, last]` ranges. */
  done: [number, number][];
  counts: Counts;
  rejectsBytes: number;
  finished: boolean;
}

export interface Checkpoint {
  version: 1;
  syncRunTime: string;
  dryRun: boolean;
  source: string;
  files: Record<string, FileState>;
}

/** Where the checkpoint of an input (a file or a directory) is kept. */
export const checkpointPathOf = (input: string, isDirectory: boolean) => (isDirectory ? `${input}/.push-checkpoint.json` : `${input}.push-checkpoint.json`);

export function readCheckpoint(path: string): Checkpoint | undefined {
  if (!existsSync(path)) return undefined;
  const checkpoint = JSON.parse(readFileSync(path, 'utf8')) as Checkpoint;
  if (checkpoint.version !== 1) throw new Error(`${path} is not a checkpoint this version of push can resume.`);
  return checkpoint;
}

export interface CheckpointWriter {
  /** Writes the checkpoint as it is now, in the background (after the write in progress, if any). */
  save(checkpoint: Checkpoint): void;
  /** Resolves once the last state saved is on disk; throws what a write failed with. */
  flush(): Promise<void>;
}

/**
 * Checkpoints written off the event loop, one write at a time: a state saved while a write is in
 * progress is written after it (only the latest of several), so the checkpoint on disk is at most a
 * few acknowledgements behind, and a resumed push sends those batches again (idempotent, see above).
 * A synchronous write and rename after each batch held up the push's sending (some 14 ms a rename).
 */
export function checkpointWriter(path: string): CheckpointWriter {
  const temporary = `${path}.${process.pid}.tmp`;
  let pending: string | undefined;
  let writing: Promise<void> | undefined;
  let failure: Error | undefined;
  const write = async () => {
    while (pending !== undefined) {
      const text = pending;
      pending = undefined;
      await writeFile(temporary, text);
      await rename(temporary, path);
    }
  };
  const start = () => {
    writing = write()
      .catch((error: unknown) => {
        failure ??= error instanceof Error ? error : new Error(String(error));
        pending = undefined;
      })
      .finally(() => {
        writing = undefined;
        if (pending !== undefined) start();
      });
  };
  return {
    save(checkpoint) {
      pending = JSON.stringify(checkpoint);
      if (!writing) start();
    },
    async flush() {
      while (writing) await writing;
      if (failure) throw failure;
    },
  };
}

export const removeCheckpoint = (path: string) => rmSync(path, { force: true });

/** A file's state at the start of a push. */
export function freshState(file: string): FileState {
  const { size, mtimeMs } = statSync(file);
  return { size, mtimeMs, done: [], counts: noCounts(), rejectsBytes: 0, finished: false };
}

/** Whether the file is still the one the checkpoint was made of. */
export function unchanged(file: string, state: FileState) {
  const { size, mtimeMs } = statSync(file);
  return size === state.size && mtimeMs === state.mtimeMs;
}

/** Adds `[first, last]` to sorted disjoint ranges, merging neighbours. */
export function addRange(ranges: [number, number][], first: number, last: number): [number, number][] {
  const all = [...ranges, [first, last] as [number, number]].sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const range of all) {
    const previous = merged.at(-1);
    if (previous && range[0] <= previous[1] + 1) previous[1] = Math.max(previous[1], range[1]);
    else merged.push([range[0], range[1]]);
  }
  return merged;
}

/** A membership test for sorted ranges, for indexes asked in increasing order. */
export function rangeCursor(ranges: readonly [number, number][]) {
  let at = 0;
  return (index: number) => {
    while (at < ranges.length && ranges[at]![1] < index) at++;
    return at < ranges.length && ranges[at]![0] <= index;
  };
}

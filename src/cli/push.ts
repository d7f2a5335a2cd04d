/**
 * `tms-ingest push <file or directory>` (also `npm run push -- …`): a first sync (or any sync) from
 * files, on the typed client (src/client): NDJSON, JSON arrays or CSV, each file's kind from `--kind` or
 * its name, a directory's files in the contract's order (the registry's, parents first: each kind
 * finished before the next starts), in bulk batches under the routes' limits,
 * retried and paced by the client, with progress, rejects to `<input>.rejected.ndjson` and a
 * checkpoint after each acknowledged batch for `--resume`. docs/reference/cli.md#push.
 *
 * Exit codes: 0 every record accepted, 1 some rejected, 2 bad invocation, refused key or no service.
 */
import { appendFileSync, existsSync, readdirSync, rmSync, statSync, truncateSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  bulkLimits,
  createClient,
  IngestApiError,
  IngestConnectionError,
  isRecordError,
  kindsInOrder,
  type BulkRecordError,
  type BulkRecordResult,
  writeAction,
  type IngestClient,
  type IngestSource,
  type RecordKind,
} from '../client/index.js';
import {
  addRange,
  checkpointPathOf,
  checkpointWriter,
  freshState,
  noCounts,
  rangeCursor,
  readCheckpoint,
  removeCheckpoint,
  unchanged,
  type Checkpoint,
  type CheckpointWriter,
  type Counts,
} from './push-checkpoint.js';
import {
  formatOf,
  InputError,
  isRejectsFile,
  kindOfFile,
  permalinkOf,
  readChunkBytes,
  readInput,
  rejectsSuffix,
  syntaxError,
  type InputFormat,
  type InputItem,
} from './push-input.js';
import { createProgress, type Progress } from './push-progress.js';

const exitCode = { ok: 0, rejected: 1, failed: 2 } as const;

const usage = `Usage: tms-ingest push <file or directory> [options]     (npm run push -- <file or directory> [options])

Pushes records from NDJSON (.ndjson, .jsonl), JSON array (.json) or CSV (.csv, a header row of the
contract's field names) files through the bulk routes. A directory pushes every file whose name names a
kind (${kindsInOrder.map((k) => `${k}s`).join(', ')}), kind after kind in the contract's order.

Options:
  --url <url>              the service (default $TMS_INGEST_URL, else http://localhost:4000)
  --key <API key>          the tenant's key (default $TMS_INGEST_API_KEY)
  --kind <kind>            the kind of a file whose name does not say it: ${kindsInOrder.join(', ')}
  --concurrency <n>        batches in flight at once (default 4, at most 32)
  --sync-run-time <time>   ISO 8601 sync_run_time of every record (default: when the push started)
  --source <pull|webhook>  Service-Ingest-Source (default pull)
  --dry-run                rehearse: every record validated and evaluated, nothing stored
  --resume                 go on from the checkpoint an interrupted push left
  --json                   print one summary object at the end (stdout)
  --progress-interval <s>  seconds between progress lines when stderr is no terminal (default 5)
  --help

Rejected records go to <input>${rejectsSuffix} (line, index, permalink, error), which push takes as input
again once fixed. Exit codes: 0 every record accepted, 1 some rejected, 2 bad invocation, refused key,
unreachable service.`;

/** A wrong invocation or an input push cannot read: printed with a hint, exit 2. */
class UsageError extends Error {}

interface InputFile {
  /** Path as given (or inside the directory). */
  path: string;
  /** Its key in the checkpoint: the name inside a directory, the path for a single file. */
  key: string;
  kind: RecordKind;
  format: InputFormat;
}

interface FileSummary extends Counts {
  file: string;
  kind: RecordKind;
  records: number;
  rejectsFile: string | null;
}

const isSource = (value: string): value is IngestSource => value === 'pull' || value === 'webhook';

function parseCommandLine(argv: string[]) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        url: { type: 'string' },
        key: { type: 'string' },
        kind: { type: 'string' },
        concurrency: { type: 'string' },
        'sync-run-time': { type: 'string' },
        source: { type: 'string' },
        'dry-run': { type: 'boolean' },
        resume: { type: 'boolean' },
        json: { type: 'boolean' },
        'progress-interval': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return null;
  if (positionals.length !== 1) throw new UsageError(positionals.length ? `One file or directory, not ${positionals.length}.` : 'No file or directory given.');
  const key = values.key ?? process.env.TMS_INGEST_API_KEY;
  if (!key) throw new UsageError('No API key: give --key <API key> or set TMS_INGEST_API_KEY.');
  const url = values.url ?? process.env.TMS_INGEST_URL ?? 'http://localhost:4000';
  if (!/^https?:\/\/[^/]/.test(url)) throw new UsageError(`--url "${url}" is not an http:// or https:// URL.`);
  const kind = values.kind;
  if (kind !== undefined && !kindsInOrder.includes(kind as RecordKind)) throw new UsageError(`--kind "${kind}" is none of ${kindsInOrder.join(', ')}.`);
  const concurrency = values.concurrency === undefined ? 4 : Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 32)
    throw new UsageError(`--concurrency "${values.concurrency}" is not a whole number from 1 to 32.`);
  const source = values.source ?? 'pull';
  if (!isSource(source)) throw new UsageError(`--source "${source}" is neither pull nor webhook.`);
  const syncRunTime = values['sync-run-time'];
  if (syncRunTime !== undefined && (!/(Z|[+-]\d\d:?\d\d)$/i.test(syncRunTime) || Number.isNaN(Date.parse(syncRunTime)))) {
    throw new UsageError(`--sync-run-time "${syncRunTime}" is not an ISO 8601 date-time with a zone (such as 2026-11-23T10:00:00Z).`);
  }
  const interval = values['progress-interval'] === undefined ? 5 : Number(values['progress-interval']);
  if (!(interval > 0)) throw new UsageError(`--progress-interval "${values['progress-interval']}" is not a number of seconds above 0.`);
  return {
    input: positionals[0]!,
    url: url.replace(/\/+$/, ''),
    key,
    kind: kind as RecordKind | undefined,
    concurrency,
    source,
    syncRunTime: syncRunTime === undefined ? undefined : new Date(syncRunTime).toISOString(),
    dryRun: values['dry-run'] ?? false,
    resume: values.resume ?? false,
    json: values.json ?? false,
    progressIntervalMs: interval * 1000,
  };
}

type Invocation = NonNullable<ReturnType<typeof parseCommandLine>>;

/** The files to push, in the order to push them. */
function inputFiles(input: string, kind: RecordKind | undefined): { files: InputFile[]; isDirectory: boolean } {
  if (!existsSync(input)) throw new UsageError(`No such file or directory: ${input}`);
  const describe = (path: string, key: string): InputFile => {
    const format = formatOf(path);
    if (!format) throw new UsageError(`${path}: push reads .ndjson, .jsonl, .json and .csv files.`);
    const fileKind = kind ?? kindOfFile(path);
    if (!fileKind) throw new UsageError(`${path}: its name says no kind; name it after one (${kindsInOrder.map((k) => `${k}s`).join(', ')}) or give --kind.`);
    return { path, key, kind: fileKind, format };
  };
  if (!statSync(input).isDirectory()) return { files: [describe(input, resolve(input))], isDirectory: false };
  const files = readdirSync(input)
    .filter((name) => formatOf(name) && !isRejectsFile(name) && !name.startsWith('.'))
    .sort()
    .map((name) => describe(join(input, name), name))
    .sort((a, b) => kindsInOrder.indexOf(a.kind) - kindsInOrder.indexOf(b.kind));
  if (!files.length) throw new UsageError(`${input} holds no .ndjson, .jsonl, .json or .csv file to push.`);
  return { files, isDirectory: true };
}

/**
 * Records in a file, counted fast (lines, for NDJSON and CSV); undefined for JSON arrays. One buffer is
 * read into again and again: a stream's new buffer per chunk made RSS jump while a large file was counted.
 */
async function countRecords(file: InputFile): Promise<number | undefined> {
  if (file.format === 'json') return undefined;
  let lines = 0;
  let last = 10;
  const buffer = Buffer.allocUnsafe(readChunkBytes);
  const handle = await open(file.path);
  try {
    for (let read; (read = (await handle.read(buffer, 0, buffer.length)).bytesRead) > 0;) {
      const chunk = buffer.subarray(0, read);
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      last = chunk[read - 1]!;
    }
  } finally {
    await handle.close();
  }
  if (last !== 10) lines++;
  return Math.max(0, file.format === 'csv' ? lines - 1 : lines);
}

/** The human sentence for what stopped the push. */
function failureMessage(error: unknown, url: string, during: boolean): string | undefined {
  const resume = during ? ' What was acknowledged is kept: run the same command with --resume to go on.' : '';
  if (error instanceof IngestConnectionError) {
    if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN')
      return `Cannot reach ${url}: the host name does not resolve. Check --url (or TMS_INGEST_URL).`;
    if (error.code === 'ECONNREFUSED') {
      return during
        ? `The service at ${url} went away (connection refused) and did not come back while push kept retrying.${resume}`
        : `Cannot reach ${url}: nothing is listening there (connection refused). Is the server running? Check --url (or TMS_INGEST_URL).`;
    }
    return `No answer from ${url} (${error.code ?? error.message})${during ? ' while push kept retrying' : ''}. Is the server running? Check --url.${resume}`;
  }
  if (error instanceof IngestApiError) {
    if (error.status === 401) return `The API key was refused (401 ${error.code}: ${error.message}). Check --key (or TMS_INGEST_API_KEY).${resume}`;
    if (error.status === 404 || error.code.startsWith('http_'))
      return `${url} does not look like a tms-ingest service (${error.path} answered ${error.status}). Check --url (or TMS_INGEST_URL).`;
    if (error.status === 429 || error.status === 503)
      return `The service kept refusing (${error.status} ${error.code}: ${error.message}) for longer than push waits.${resume}`;
    return `The service refused a request (${error.status} ${error.code}: ${error.message}).${resume}`;
  }
  return undefined;
}

interface Run {
  client: IngestClient;
  invocation: Invocation;
  syncRunTime: string;
  checkpoint: Checkpoint;
  checkpoints: CheckpointWriter;
  totals: Counts;
  progress: Progress;
  total: number | undefined;
  done: number;
}

/** Pushes one file: batches read ahead while up to `concurrency` are in flight; each acknowledgement is written down. */
async function pushFile(run: Run, file: InputFile): Promise<FileSummary> {
  const { client, invocation, checkpoint } = run;
  const state = checkpoint.files[file.key]!;
  const rejectsPath = `${file.path}${rejectsSuffix}`;
  const summary = (): FileSummary => ({
    file: file.path,
    kind: file.kind,
    records: state.counts.processed + state.counts.skipped + state.counts.duplicate + state.counts.rejected,
    ...state.counts,
    rejectsFile: state.counts.rejected ? rejectsPath : null,
  });
  if (state.finished) return summary();
  if (state.rejectsBytes === 0) rmSync(rejectsPath, { force: true });
  else if (existsSync(rejectsPath)) truncateSync(rejectsPath, state.rejectsBytes);
  const acknowledged = rangeCursor(state.done);
  const action = writeAction(file.kind);
  const write = { dryRun: invocation.dryRun, syncRunTime: run.syncRunTime, source: invocation.source };
  const show = () => run.progress.update({ done: run.done, total: run.total, counts: run.totals, current: basename(file.path) });

  type RecordItem = Extract<InputItem, { type: 'record' }>;
  interface Batch {
    first: number;
    last: number;
    items: RecordItem[];
    rejects: Extract<InputItem, { type: 'reject' }>[];
    bytes: number;
  }
  const newBatch = (): Batch => ({ first: -1, last: -1, items: [], rejects: [], bytes: 0 });
  /** Rejects file lines: where the record stands, its permalink, the error, and the record itself. */
  const rejectLine = (
    at: { line: number; index: number },
    permalink: string | undefined,
    error: { code: string; message: string; details?: unknown },
    record: unknown,
  ) => `${JSON.stringify({ line: at.line, index: at.index, permalink: permalink ?? null, error, record })}\n`;

  /** A record sent, parsed again for its rejects line (null: it is no JSON). */
  const recordOf = (item: RecordItem): unknown => {
    try {
      return JSON.parse(Buffer.from(item.json.buffer, item.json.byteOffset, item.json.byteLength).toString('utf8'));
    } catch {
      return null;
    }
  };

  /**
   * The results of records written together, in their order. The service refuses a whole request as
   * `invalid_json` when a line that looked like an object (NDJSON lines are not parsed here) is no
   * JSON: the batch's lines are then parsed, those that are no JSON rejected, and the rest sent again
   * (in halves, should the service still refuse them, down to the one record it refuses).
   */
  const writeRecords = async (items: RecordItem[]): Promise<BulkRecordResult[]> => {
    try {
      return (
        await client.bulkSerialized(
          file.kind,
          action,
          items.map((item) => item.json),
          write,
        )
      ).results;
    } catch (error) {
      if (!(error instanceof IngestApiError && error.status === 400 && error.code === 'invalid_json')) throw error;
      const refused = { code: error.code, message: error.message } as BulkRecordError['error'];
      if (items.length === 1) return [{ index: 0, error: refused }];
      const results: BulkRecordResult[] = [];
      const sendable: number[] = [];
      items.forEach((item, i) => {
        const message = syntaxError(item.json, item.at);
        if (message) results[i] = { index: i, error: { ...refused, message } };
        else sendable.push(i);
      });
      const half = Math.ceil(sendable.length / 2);
      const parts = sendable.length < items.length ? [sendable] : [sendable.slice(0, half), sendable.slice(half)];
      for (const part of parts.filter((p) => p.length)) {
        for (const answer of await writeRecords(part.map((i) => items[i]!))) results[part[answer.index]!] = { ...answer, index: part[answer.index]! };
      }
      return results;
    }
  };

  const settle = (batch: Batch, results: BulkRecordResult[]) => {
    const counts = noCounts();
    let lines = batch.rejects
      .map((reject) => rejectLine(reject.at, reject.permalink, { code: reject.code, message: reject.message }, reject.record ?? null))
      .join('');
    counts.rejected += batch.rejects.length;
    for (const result of results) {
      const item = batch.items[result.index]!;
      if (isRecordError(result)) {
        counts.rejected++;
        const record = recordOf(item);
        lines += rejectLine(item.at, result.permalink ?? permalinkOf(file.kind, record), result.error, record);
      } else counts[result.status]++;
    }
    if (lines) {
      appendFileSync(rejectsPath, lines);
      state.rejectsBytes += Buffer.byteLength(lines);
    }
    state.done = addRange(state.done, batch.first, batch.last);
    for (const key of Object.keys(counts) as (keyof Counts)[]) {
      state.counts[key] += counts[key];
      run.totals[key] += counts[key];
    }
    run.done += batch.items.length + batch.rejects.length;
    run.checkpoints.save(checkpoint);
    show();
  };

  const inFlight = new Set<Promise<void>>();
  let failed: Error | undefined;
  const send = async (batch: Batch) => {
    if (batch.first < 0) return;
    while (inFlight.size >= invocation.concurrency) await Promise.race(inFlight);
    if (failed) throw failed;
    const sending = (batch.items.length ? writeRecords(batch.items) : Promise.resolve([]))
      .then((results) => settle(batch, results))
      .catch((error: unknown) => {
        failed ??= error instanceof Error ? error : new Error(String(error));
      })
      .finally(() => inFlight.delete(sending));
    inFlight.add(sending);
  };
  /**
   * Records a batch may hold now: one record until the tenant's rate limit is known (its answer, quick
   * to come, says the limit), then the routes' limit, or at most half the tenant's bucket.
   */
  const batchSize = () => {
    const policy = client.ratePolicy;
    if (policy === undefined) return 1;
    if (policy === null) return bulkLimits.maxRecords;
    return Math.max(1, Math.min(bulkLimits.maxRecords, Math.floor(policy.burst / 2)));
  };
  // The envelope `{"records":[…]}` and the commas between records.
  const maxBytes = bulkLimits.maxBytes - 64;

  let batch = newBatch();
  let size = batchSize();
  for await (const item of readInput(file.path, file.format, file.kind)) {
    if (failed) break;
    if (acknowledged(item.at.index)) {
      // Acknowledged before the interruption: the batch ends here, so that batches stay contiguous.
      await send(batch);
      batch = newBatch();
      continue;
    }
    const bytes = item.type === 'record' ? item.json.byteLength + 1 : 0;
    if (bytes > maxBytes) {
      batch.rejects.push({
        type: 'reject',
        at: item.at,
        permalink: item.type === 'record' ? permalinkOf(file.kind, recordOf(item)) : undefined,
        code: 'payload_too_large',
        message: `The record is over ${bulkLimits.maxBytes} bytes as JSON.`,
      });
    } else {
      if (batch.items.length >= size || batch.bytes + bytes > maxBytes) {
        await send(batch);
        // Until the tenant's rate limit is known, the first (small) batch goes alone: its answer sizes the next.
        if (client.ratePolicy === undefined) await Promise.all(inFlight);
        batch = newBatch();
        size = batchSize();
      }
      if (item.type === 'record') {
        batch.items.push(item);
        batch.bytes += bytes;
      } else batch.rejects.push(item);
    }
    if (batch.first < 0) batch.first = item.at.index;
    batch.last = item.at.index;
  }
  if (!failed) await send(batch);
  await Promise.all(inFlight);
  if (failed) throw failed;
  state.finished = true;
  run.checkpoints.save(checkpoint);
  return summary();
}

async function main(argv: string[]): Promise<number> {
  let invocation: Invocation | null;
  let files: InputFile[];
  let isDirectory: boolean;
  try {
    invocation = parseCommandLine(argv);
    if (!invocation) {
      console.log(usage);
      return exitCode.ok;
    }
    ({ files, isDirectory } = inputFiles(invocation.input, invocation.kind));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\n\n${usage}`);
    return exitCode.failed;
  }
  const client = createClient({ url: invocation.url, apiKey: invocation.key, source: invocation.source });
  try {
    await client.viewer();
  } catch (error) {
    const message = failureMessage(error, invocation.url, false);
    if (!message) throw error;
    console.error(message);
    return exitCode.failed;
  }

  const checkpointPath = checkpointPathOf(invocation.input, isDirectory);
  let checkpoint = invocation.resume ? readCheckpoint(checkpointPath) : undefined;
  if (invocation.resume && !checkpoint) console.error(`No checkpoint at ${checkpointPath}: pushing from the start.`);
  if (checkpoint && invocation.syncRunTime && invocation.syncRunTime !== checkpoint.syncRunTime) {
    console.error(`--sync-run-time differs from the interrupted push's (${checkpoint.syncRunTime}): resume keeps the first one, or push without --resume.`);
    return exitCode.failed;
  }
  if (checkpoint && checkpoint.dryRun !== invocation.dryRun) {
    console.error(`The interrupted push was ${checkpoint.dryRun ? '' : 'not '}a dry run: resume it the same way, or push without --resume.`);
    return exitCode.failed;
  }
  for (const file of files) {
    const state = checkpoint?.files[file.key];
    if (state && !unchanged(file.path, state)) {
      console.error(`${file.path} changed since the interrupted push: it cannot be resumed. Push it without --resume.`);
      return exitCode.failed;
    }
  }
  checkpoint ??= {
    version: 1,
    syncRunTime: invocation.syncRunTime ?? new Date().toISOString(),
    dryRun: invocation.dryRun,
    source: invocation.source,
    files: {},
  };
  for (const file of files) checkpoint.files[file.key] ??= freshState(file.path);

  const counted = await Promise.all(files.map(countRecords));
  // The push's own time: from its first request on (after the check of the key and the counting).
  const started = performance.now();
  const totals = noCounts();
  for (const file of files) for (const key of Object.keys(totals) as (keyof Counts)[]) totals[key] += checkpoint.files[file.key]!.counts[key];
  const done = totals.processed + totals.skipped + totals.duplicate + totals.rejected;
  const run: Run = {
    client,
    invocation,
    syncRunTime: checkpoint.syncRunTime,
    checkpoint,
    checkpoints: checkpointWriter(checkpointPath),
    totals,
    total: counted.every((n) => n !== undefined) ? counted.reduce((a, b) => a + b, 0) : undefined,
    done,
    progress: createProgress({ tty: Boolean(process.stderr.isTTY), intervalMs: invocation.progressIntervalMs, write: process.stderr, done }),
  };
  const summaries: FileSummary[] = [];
  let failure: string | undefined;
  try {
    for (const file of files) summaries.push(await pushFile(run, file));
  } catch (error) {
    failure = error instanceof InputError ? error.message : failureMessage(error, invocation.url, true);
    if (!failure) throw error;
  } finally {
    run.progress.stop({ done: run.done, total: run.total, counts: run.totals, current: failure ? 'stopped' : 'done' });
    // What was acknowledged is on disk before push exits (and before the checkpoint is removed).
    await run.checkpoints.flush();
  }
  if (failure) {
    console.error(failure);
    return exitCode.failed;
  }
  removeCheckpoint(checkpointPath);

  const durationMs = Math.round(performance.now() - started);
  const records = totals.processed + totals.skipped + totals.duplicate + totals.rejected;
  const stats = client.stats();
  if (invocation.json) {
    console.log(
      JSON.stringify({
        input: invocation.input,
        dryRun: invocation.dryRun,
        syncRunTime: checkpoint.syncRunTime,
        records,
        ...totals,
        files: summaries,
        durationMs,
        recordsPerSecond: Math.round((records * 1000) / Math.max(1, durationMs)),
        requests: stats.requests,
        retries: stats.retries,
        pacedMs: stats.pacedMs,
        backoffMs: stats.backoffMs,
        maxRssBytes: process.resourceUsage().maxRSS * 1024,
      }),
    );
  } else {
    const rejects = summaries.filter((s) => s.rejectsFile).map((s) => `${s.rejected} in ${s.rejectsFile}`);
    console.log(
      `${invocation.dryRun ? 'Rehearsed (dry run, nothing stored)' : 'Pushed'} ${records.toLocaleString('en-US')} records from ${invocation.input} in ${(durationMs / 1000).toFixed(1)} s: ` +
        `${totals.processed} processed, ${totals.skipped} skipped, ${totals.duplicate} duplicate, ${totals.rejected} rejected${rejects.length ? ` (${rejects.join('; ')})` : ''}.`,
    );
  }
  return totals.rejected ? exitCode.rejected : exitCode.ok;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(exitCode.failed);
  },
);

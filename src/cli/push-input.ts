/**
 * The inputs of `tms-ingest push`, read as streams (memory stays flat whatever the file's size): NDJSON
 * (one record a line), a JSON array (its elements, split without building the array), or CSV with a
 * header row of the contract's field names, each cell coerced by the field's type in the kind's zod
 * declaration. Each record comes with where it stands (line, and index for a JSON array) and its JSON
 * text as bytes; a row that is no record (bad JSON, a cell that is not a number) comes as a reject instead.
 *
 * An NDJSON line is not parsed here: a line that starts with `{` and ends with `}` goes as it was read
 * (the bytes of the file, never decoded), and the service parses it. Parsing every line twice was the
 * client's largest cost (docs/explanation/performance/2026-12-02-push.md); a line that is no JSON after
 * all makes the service refuse its batch as `invalid_json`, and push then finds it (`syntaxError`).
 */
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { parse } from 'csv-parse';
import { z } from 'zod';
import { recordSpecOf, type RecordKind } from '../domain/registry.js';

/** An input push cannot read on (not a JSON array, a CSV row it cannot split). */
export class InputError extends Error {}

export type InputFormat = 'ndjson' | 'json' | 'csv';

/** Where a record stands in its file: its 1-based line (its first line), and its 0-based index among the records. */
export interface Position {
  line: number;
  index: number;
}

export type InputItem =
  | { type: 'record'; at: Position; json: Uint8Array }
  | { type: 'reject'; at: Position; permalink: string | undefined; code: string; message: string; record?: unknown };

/** The size of the chunks push reads its files in: large enough that reading costs little CPU. */
export const readChunkBytes = 256 * 1024;

/** The file's format by its extension (a rejects file, `<input>.rejected.ndjson`, is NDJSON). */
export function formatOf(file: string): InputFormat | undefined {
  const name = file.toLowerCase();
  if (name.endsWith('.ndjson') || name.endsWith('.jsonl')) return 'ndjson';
  if (name.endsWith('.json')) return 'json';
  if (name.endsWith('.csv')) return 'csv';
  return undefined;
}

/** A rejects file written by push: its lines hold the rejected record under `record`. */
export const rejectsSuffix = '.rejected.ndjson';
export const isRejectsFile = (file: string) => file.toLowerCase().endsWith(rejectsSuffix);

/** `load_legs`, `LoadLegs`, `load-legs` → `loadlegs`. */
const squash = (name: string) => name.toLowerCase().replace(/[^a-z]/g, '');

/**
 * The kind a file holds by its name: `loads.csv`, `load_legs.ndjson`, `loadlegs.json`, `2-stops.csv`,
 * `load_updates.csv.rejected.ndjson` (the name up to its first dot, digits and separators aside): the
 * kind's name, its plural or its REST collection.
 */
export function kindOfFile(file: string): RecordKind | undefined {
  const stem = squash(basename(file).split('.')[0]!);
  return (Object.keys(recordSpecOf) as RecordKind[]).find((kind) => {
    const spec = recordSpecOf[kind];
    return [kind, `${kind}s`, spec.rest.collection].map(squash).includes(stem);
  });
}

type CellType = 'string' | 'integer' | 'number' | 'date-time';

/** Each contract field's type, from the kind's zod declaration (its JSON Schema, as the OpenAPI document has it). */
const cellTypesCache = new Map<RecordKind, Map<string, CellType>>();
function cellTypesOf(kind: RecordKind): Map<string, CellType> {
  let types = cellTypesCache.get(kind);
  if (!types) {
    types = new Map();
    for (const [field, schema] of Object.entries(recordSpecOf[kind].body.shape as Record<string, z.ZodType>)) {
      const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
        type?: string;
        format?: string;
        anyOf?: { type?: string; format?: string }[];
      };
      const variant = (json.anyOf ?? [json]).find((v) => v.type !== 'null') ?? {};
      types.set(field, variant.type === 'integer' ? 'integer' : variant.type === 'number' ? 'number' : variant.format === 'date-time' ? 'date-time' : 'string');
    }
    cellTypesCache.set(kind, types);
  }
  return types;
}

/** A CSV cell as its field's value: empty = null; a number field's cell must be a number. Throws a message otherwise. */
function coerce(field: string, type: CellType, cell: string): unknown {
  if (cell === '') return null;
  const trimmed = cell.trim();
  switch (type) {
    case 'integer':
      if (!/^[+-]?\d+$/.test(trimmed)) throw new Error(`${field}: "${cell}" is not an integer`);
      return Number(trimmed);
    case 'number':
      if (trimmed === '' || !Number.isFinite(Number(trimmed))) throw new Error(`${field}: "${cell}" is not a number`);
      return Number(trimmed);
    case 'date-time':
      if (Number.isNaN(Date.parse(trimmed))) throw new Error(`${field}: "${cell}" is not a date-time (ISO 8601 with a zone, such as 2026-11-23T10:00:00Z)`);
      return trimmed;
    default:
      return cell;
  }
}

const permalinkIn = (record: unknown, field: string) => {
  const value = (record as Record<string, unknown> | null)?.[field];
  return typeof value === 'string' ? value : undefined;
};

/** The kind's permalink in a record (parsed), when it is a string. */
export const permalinkOf = (kind: RecordKind, record: unknown) => permalinkIn(record, recordSpecOf[kind].permalinkField);

/** Why a record's JSON text does not parse as an object (undefined: it does), worded for the rejects file. */
export function syntaxError(json: Uint8Array, at: Position): string | undefined {
  let record: unknown;
  try {
    record = JSON.parse(Buffer.from(json.buffer, json.byteOffset, json.byteLength).toString('utf8'));
  } catch (error) {
    return `Line ${at.line} is not JSON: ${(error as Error).message}`;
  }
  return record && typeof record === 'object' && !Array.isArray(record) ? undefined : `Line ${at.line} is not a JSON object.`;
}

/** Bytes a line's ends may hold around its JSON: space, tab, carriage return. */
const isBlank = (byte: number) => byte === 32 || byte === 9 || byte === 13;
const [openBrace, closeBrace] = [0x7b, 0x7d];
const bom = Buffer.from([0xef, 0xbb, 0xbf]);

/** One record a line, as the file's bytes; a rejects file's lines give their `record`. */
async function* ndjson(file: string, kind: RecordKind, unwrapRejects: boolean, onBytes: (bytes: number) => void): AsyncGenerator<InputItem> {
  let line = 0;
  let index = 0;
  /** A line that is no object at a glance: parsed, for the message (or, in a rejects file, to unwrap its record). */
  const parsed = (text: string, at: Position): InputItem => {
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch (error) {
      return { type: 'reject', at, permalink: undefined, code: 'invalid_json', message: `Line ${at.line} is not JSON: ${(error as Error).message}` };
    }
    if (unwrapRejects && record && typeof record === 'object' && 'record' in record) record = record.record;
    if (!record || typeof record !== 'object' || Array.isArray(record)) {
      return { type: 'reject', at, permalink: undefined, code: 'invalid_json', message: `Line ${at.line} is not a JSON object.`, record };
    }
    return { type: 'record', at, json: Buffer.from(JSON.stringify(record)) };
  };
  const handle = (bytes: Buffer): InputItem | undefined => {
    line++;
    let [start, end] = [0, bytes.length];
    while (start < end && isBlank(bytes[start]!)) start++;
    while (end > start && isBlank(bytes[end - 1]!)) end--;
    if (start === end) return undefined;
    const at = { line, index: index++ };
    if (!unwrapRejects && bytes[start] === openBrace && bytes[end - 1] === closeBrace) return { type: 'record', at, json: bytes.subarray(start, end) };
    return parsed(bytes.toString('utf8', start, end), at);
  };
  // The lines are views of the chunks read (no copy); only a line split between two chunks is copied
  // into one buffer (copying every chunk onto the previous one's tail doubled the bytes held).
  let rest: Buffer | undefined;
  let first = true;
  for await (const read of createReadStream(file, { highWaterMark: readChunkBytes }) as AsyncIterable<Buffer>) {
    onBytes(read.length);
    const chunk = first && read.subarray(0, 3).equals(bom) ? read.subarray(3) : read;
    first = false;
    let from = 0;
    let end = chunk.indexOf(10);
    if (rest) {
      if (end === -1) {
        rest = Buffer.concat([rest, chunk]);
        continue;
      }
      const item = handle(Buffer.concat([rest, chunk.subarray(0, end)]));
      rest = undefined;
      from = end + 1;
      end = chunk.indexOf(10, from);
      if (item) yield item;
    }
    for (; end !== -1; end = chunk.indexOf(10, from)) {
      const item = handle(chunk.subarray(from, end));
      from = end + 1;
      if (item) yield item;
    }
    if (from < chunk.length) rest = chunk.subarray(from);
  }
  const item = rest && handle(rest);
  if (item) yield item;
}

/**
 * The elements of a top-level JSON array, each parsed alone: the text is split where the array's depth
 * is 1 and not inside a string.
 */
async function* jsonArray(file: string, onBytes: (bytes: number) => void): AsyncGenerator<InputItem> {
  let line = 1;
  let index = 0;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let element = '';
  let elementLine = 1;
  let started = false;
  let awaitingStart = true;
  const decoder = new TextDecoder();
  const finish = (): InputItem | undefined => {
    const text = element.trim();
    element = '';
    if (text === '') return undefined;
    const at = { line: elementLine, index: index++ };
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch (error) {
      return {
        type: 'reject',
        at,
        permalink: undefined,
        code: 'invalid_json',
        message: `Element ${at.index} (line ${at.line}) is not JSON: ${(error as Error).message}`,
      };
    }
    if (!record || typeof record !== 'object' || Array.isArray(record)) {
      return { type: 'reject', at, permalink: undefined, code: 'invalid_json', message: `Element ${at.index} (line ${at.line}) is not a JSON object.`, record };
    }
    return { type: 'record', at, json: Buffer.from(text) };
  };
  for await (const chunk of createReadStream(file, { highWaterMark: readChunkBytes }) as AsyncIterable<Buffer>) {
    onBytes(chunk.length);
    const text = decoder.decode(chunk, { stream: true });
    let from = 0;
    for (let i = 0; i < text.length; i++) {
      const char = text[i]!;
      if (char === '\n') line++;
      if (inString) {
        if (escaped) escaped = false;
        else if (char === '\\') escaped = true;
        else if (char === '"') inString = false;
        continue;
      }
      if (!started) {
        if (char === '[') {
          started = true;
          depth = 1;
          from = i + 1;
        } else if (!/\s/.test(char)) throw new InputError(`${file} is not a JSON array (line ${line} starts with ${JSON.stringify(char)}).`);
        continue;
      }
      // An element starts at its first character after the `[` or a `,` of the array.
      if (awaitingStart && char !== ',' && char !== ']' && !/\s/.test(char)) {
        elementLine = line;
        awaitingStart = false;
      }
      if (char === '"') inString = true;
      else if (char === '{' || char === '[') depth++;
      else if (char === '}' || char === ']') depth--;
      if ((char === ',' && depth === 1) || depth === 0) {
        element += text.slice(from, i);
        from = i + 1;
        awaitingStart = true;
        const item = finish();
        if (item) yield item;
        if (depth === 0) return;
      }
    }
    element += text.slice(from);
  }
  throw new InputError(`${file} ends before its JSON array is closed.`);
}

/** CSV rows as records: the header names the fields; cells are coerced by the fields' types. */
async function* csv(file: string, kind: RecordKind, onBytes: (bytes: number) => void): AsyncGenerator<InputItem> {
  const types = cellTypesOf(kind);
  const field = recordSpecOf[kind].permalinkField;
  const stream = createReadStream(file, { highWaterMark: readChunkBytes });
  stream.on('data', (chunk) => onBytes(chunk.length));
  const parser = stream.pipe(parse({ bom: true, info: true, relax_column_count: false, skip_empty_lines: true }));
  let header: string[] | undefined;
  let index = 0;
  try {
    for await (const { record: cells, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      if (!header) {
        header = cells.map((cell) => cell.trim());
        continue;
      }
      // `info.lines` is the row's last line; a row starts there unless a quoted cell held line breaks.
      const line = info.lines - cells.reduce((breaks, cell) => breaks + (cell.match(/\n/g)?.length ?? 0), 0);
      const at = { line, index: index++ };
      const record: Record<string, unknown> = {};
      const problems: string[] = [];
      header.forEach((name, i) => {
        try {
          record[name] = coerce(name, types.get(name) ?? 'string', cells[i] ?? '');
        } catch (error) {
          problems.push((error as Error).message);
        }
      });
      if (problems.length) {
        yield {
          type: 'reject',
          at,
          permalink: permalinkIn(record, field),
          code: 'validation_failed',
          message: `Line ${line}: ${problems.join('; ')}.`,
          record,
        };
      } else yield { type: 'record', at, json: Buffer.from(JSON.stringify(record)) };
    }
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code?.startsWith('CSV_')) throw new InputError(`${file}: ${(error as Error).message}`);
    throw error;
  }
}

/** The records of one file. `onBytes` is told of every chunk read (progress by bytes). */
export function readInput(file: string, format: InputFormat, kind: RecordKind, onBytes: (bytes: number) => void = () => {}): AsyncGenerator<InputItem> {
  if (format === 'csv') return csv(file, kind, onBytes);
  if (format === 'json') return jsonArray(file, onBytes);
  return ndjson(file, kind, isRejectsFile(file), onBytes);
}

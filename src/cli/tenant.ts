/**
 * `npm run tenant -- <command>`: tenant onboarding from the command line (api-contract.md D). Uses the
 * server's DATABASE_URL / DATA_DIR, applies pending migrations first, and calls the same domain
 * functions as the rest of the service. Keys are printed once; only their hashes are stored.
 *
 * Exit codes: 0 done, 1 failed (database in use or unreachable, bad configuration), 2 bad invocation
 * or invalid argument, 3 unknown tenant, 4 tenant already exists.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import { DatabaseInUseError, openDatabase, type Database } from '../db/database.js';
import { migrateIfPending } from '../db/migrate.js';
import type { Phase } from '../db/generated/prisma/enums.js';
import { ingestSources, type IngestSourceName } from '../domain/ingest-health/report.js';
import { listStatusMappings, phases, setStatusMapping } from '../domain/status-mapping/service.js';
import {
  createTenant,
  DuplicateTenantError,
  findTenantBySlug,
  listTenants,
  revokeApiKeys,
  rateLimitRange,
  rotateApiKey,
  setRateLimit,
  setStaleInterval,
  slugPattern,
  staleSecondsRange,
} from '../domain/tenant/service.js';
import { AppError, isDatabaseUnavailable } from '../errors.js';

const exitCode = { ok: 0, failed: 1, usage: 2, unknownTenant: 3, duplicate: 4 } as const;

/** A wrong invocation: printed with the command's usage. */
class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: Command,
  ) {
    super(message);
  }
}

type Options = NonNullable<ParseArgsConfig['options']>;
type Values = Record<string, string | boolean | undefined>;

interface Command {
  name: string;
  usage: string;
  summary: string;
  args: string[];
  options: Options;
  /** Checks the arguments (before the database is opened) and returns the work to do. */
  prepare(args: string[], values: Values): (db: Database, out: Output) => Promise<void>;
}

/** Writes a command's result: human-readable text, or one JSON line with `--json`. */
interface Output {
  result(text: string, json: unknown): void;
}

const json = { json: { type: 'boolean' } } as const satisfies Options;

function requireSlug(slug: string, command: Command) {
  if (!slugPattern.test(slug)) {
    throw new UsageError(`Invalid slug "${slug}": use lowercase letters, digits and inner hyphens (at most 100 characters).`, command);
  }
  return slug;
}

async function requireTenant(db: Database, slug: string) {
  const tenant = await findTenantBySlug(db, slug);
  if (!tenant) throw new AppError('not_found', `No tenant "${slug}". See \`npm run tenant -- list\`.`);
  return tenant;
}

const commands: Command[] = [
  {
    name: 'create',
    usage: 'create <slug> --name "<name>" [--tms-url-template "https://tms.example/loads/{key}"] [--json]',
    summary: 'Creates a tenant and prints its API key (once).',
    args: ['slug'],
    options: { name: { type: 'string' }, 'tms-url-template': { type: 'string' }, ...json },
    prepare([slug], values) {
      const name = values.name;
      if (typeof name !== 'string') throw new UsageError('--name "<name>" is required.', this);
      const input = { slug: requireSlug(slug!, this), name, tmsUrlTemplate: values['tms-url-template'] as string | undefined };
      return async (db, out) => {
        const { tenant, apiKey } = await createTenant(db, input);
        out.result(`Created tenant ${tenant.slug} (${tenant.name}).\nAPI key, shown once (only its hash is stored):\n\n  ${apiKey}\n`, {
          slug: tenant.slug,
          apiKey,
        });
      };
    },
  },
  {
    name: 'rotate-key',
    usage: 'rotate-key <slug> [--json]',
    summary: "Revokes the tenant's keys and prints a new one (once).",
    args: ['slug'],
    options: json,
    prepare([slug]) {
      requireSlug(slug!, this);
      return async (db, out) => {
        const { tenant, apiKey } = await rotateApiKey(db, slug!);
        out.result(`New API key of ${tenant.slug}, shown once (the previous keys are revoked):\n\n  ${apiKey}\n`, { slug: tenant.slug, apiKey });
      };
    },
  },
  {
    name: 'revoke-key',
    usage: 'revoke-key <slug> [--json]',
    summary: 'Revokes every key of the tenant (rotate-key issues a new one).',
    args: ['slug'],
    options: json,
    prepare([slug]) {
      requireSlug(slug!, this);
      return async (db, out) => {
        const revoked = await revokeApiKeys(db, slug!);
        out.result(`Revoked ${revoked} API key${revoked === 1 ? '' : 's'} of ${slug}. Issue a new one with rotate-key.`, { slug, revokedKeys: revoked });
      };
    },
  },
  {
    name: 'map-status',
    usage: `map-status <slug> "<TMS status>" <PHASE> [--json]`,
    summary: `Maps a TMS status to a phase and re-phases stored loads. PHASE: ${phases.join(', ')}.`,
    args: ['slug', 'status', 'phase'],
    options: json,
    prepare([slug, status, phaseArg]) {
      requireSlug(slug!, this);
      const phase = phaseArg!.toUpperCase() as Phase;
      if (!phases.includes(phase)) throw new UsageError(`Unknown phase "${phaseArg}": use one of ${phases.join(', ')}.`, this);
      return async (db, out) => {
        const tenant = await requireTenant(db, slug!);
        const mapping = await setStatusMapping(db, tenant.id, status!, phase);
        out.result(`${tenant.slug}: "${mapping.status}" → ${mapping.phase}; stored loads with that status are re-phased.`, {
          slug: tenant.slug,
          status: mapping.status,
          phase: mapping.phase,
        });
      };
    },
  },
  {
    name: 'list-status-mappings',
    usage: 'list-status-mappings <slug> [--json]',
    summary: "Lists the tenant's status mapping: each TMS status and its phase.",
    args: ['slug'],
    options: json,
    prepare([slug]) {
      requireSlug(slug!, this);
      return async (db, out) => {
        const tenant = await requireTenant(db, slug!);
        const mappings = (await listStatusMappings(db, tenant.id)).map((m) => ({ status: m.status, phase: m.phase, updatedAt: m.updatedAt }));
        const width = Math.max('TMS STATUS'.length, ...mappings.map((m) => m.status.length + 2));
        const text = mappings.length
          ? [`${'TMS STATUS'.padEnd(width)}  PHASE`, ...mappings.map((m) => `${JSON.stringify(m.status).padEnd(width)}  ${m.phase}`)].join('\n')
          : `${tenant.slug} maps no status yet; every load is UNMAPPED until one is mapped: npm run tenant -- map-status ${tenant.slug} "<TMS status>" <PHASE>`;
        out.result(text, mappings);
      };
    },
  },
  {
    name: 'set-stale-interval',
    usage: 'set-stale-interval <slug> <pull|webhook|unspecified> <seconds|default> [--json]',
    summary: 'Sets how long a source may stay silent before its ingest health turns STALE.',
    args: ['slug', 'source', 'seconds'],
    options: json,
    prepare([slug, source, secondsArg]) {
      requireSlug(slug!, this);
      if (!ingestSources.includes(source as IngestSourceName)) {
        throw new UsageError(`Unknown source "${source}": use ${ingestSources.join(', ')}.`, this);
      }
      const { min, max } = staleSecondsRange;
      const seconds = secondsArg === 'default' ? null : Number(secondsArg);
      if (seconds !== null && !(/^\d+$/.test(secondsArg!) && seconds >= min && seconds <= max)) {
        throw new UsageError(`"${secondsArg}" is not a number of seconds from ${min} to ${max} (or "default").`, this);
      }
      return async (db, out) => {
        const inForce = await setStaleInterval(db, slug!, source as IngestSourceName, seconds);
        out.result(`${slug}: ${source} turns STALE after ${inForce} s without traffic${seconds === null ? ' (default)' : ''}.`, {
          slug,
          source,
          seconds: inForce,
        });
      };
    },
  },
  {
    name: 'set-rate-limit',
    usage: 'set-rate-limit <slug> <records-per-second|default|off> [--burst N] [--json]',
    summary:
      'Sets the tenant\'s ingestion rate limit in records per second (a token bucket; --burst is its size, default the larger of RATE_LIMIT_BURST and the rate). "default" uses the service\'s RATE_LIMIT_RECORDS_PER_SECOND and RATE_LIMIT_BURST; "off" removes the limit.',
    args: ['slug', 'rate'],
    options: { burst: { type: 'string' }, ...json },
    prepare([slug, rateArg], values) {
      requireSlug(slug!, this);
      const { perSecond: rate, burst: size } = rateLimitRange;
      const whole = (text: string, min: number, max: number) => /^\d+$/.test(text) && Number(text) >= min && Number(text) <= max;
      if (rateArg !== 'default' && rateArg !== 'off' && !whole(rateArg!, 1, rate.max)) {
        throw new UsageError(`"${rateArg}" is not a number of records per second from 1 to ${rate.max} (or "default", "off").`, this);
      }
      const burstArg = values.burst as string | undefined;
      if (burstArg !== undefined && (rateArg === 'default' || rateArg === 'off')) {
        throw new UsageError(`--burst goes with a number of records per second, not "${rateArg}".`, this);
      }
      if (burstArg !== undefined && !whole(burstArg, size.min, size.max)) {
        throw new UsageError(`--burst "${burstArg}" is not a number of records from ${size.min} to ${size.max}.`, this);
      }
      const perSecond = rateArg === 'default' ? null : rateArg === 'off' ? 0 : Number(rateArg);
      const burst = burstArg === undefined ? null : Number(burstArg);
      return async (db, out) => {
        const stored = await setRateLimit(db, slug!, perSecond, burst);
        const text =
          stored.perSecond === null
            ? `${slug}: the service's default rate limit applies (RATE_LIMIT_RECORDS_PER_SECOND, RATE_LIMIT_BURST).`
            : stored.perSecond === 0
              ? `${slug}: no ingestion rate limit.`
              : `${slug}: ${stored.perSecond} records/s, bursts of ${stored.burst ?? `max(RATE_LIMIT_BURST, ${stored.perSecond})`} records.`;
        out.result(`${text} Running servers apply it within 30 s (API-key cache).`, {
          slug,
          recordsPerSecond: stored.perSecond === null ? 'default' : stored.perSecond === 0 ? 'off' : stored.perSecond,
          burst: stored.burst,
        });
      };
    },
  },
  {
    name: 'list',
    usage: 'list [--json]',
    summary: 'Lists tenants with their active key count and stale intervals.',
    args: [],
    options: json,
    prepare: () => async (db, out) => {
      const tenants = await listTenants(db);
      const rows = tenants.map((t) => [
        t.slug,
        t.name,
        String(t.activeKeys),
        `${t.staleSeconds.pull}/${t.staleSeconds.webhook}/${t.staleSeconds.unspecified}`,
        t.createdAt.toISOString(),
        t.tmsUrlTemplate ?? '',
      ]);
      const table = [['SLUG', 'NAME', 'KEYS', 'STALE S (PULL/WEBHOOK/UNSPEC.)', 'CREATED', 'TMS URL TEMPLATE'], ...rows];
      const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
      const text = tenants.length
        ? table
            .map((row) =>
              row
                .map((cell, i) => cell.padEnd(widths[i]!))
                .join('  ')
                .trimEnd(),
            )
            .join('\n')
        : 'No tenants yet. Create one with: npm run tenant -- create <slug> --name "<name>"';
      out.result(text, tenants);
    },
  },
];

function usage(command?: Command) {
  if (command) return `Usage: npm run tenant -- ${command.usage}\n\n${command.summary}`;
  return [
    'Usage: npm run tenant -- <command> [arguments] [--json]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.usage}\n      ${c.summary}`),
    '',
    'Uses DATABASE_URL, or the embedded database under DATA_DIR (default ./data; stop the server first).',
    'Exit codes: 0 done, 1 failed, 2 bad invocation or argument, 3 unknown tenant, 4 tenant already exists.',
  ].join('\n');
}

/** Parses the command line; returns null after printing help. */
function parseCommandLine(argv: string[]) {
  const [name, ...rest] = argv;
  if (name === undefined) throw new UsageError('No command given.');
  if (name === 'help' || name === '--help' || name === '-h') return null;
  const command = commands.find((c) => c.name === name);
  if (!command) throw new UsageError(`Unknown command "${name}".`);
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: { ...command.options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message, command);
  }
  if (parsed.values.help) return { command, help: true } as const;
  if (parsed.positionals.length !== command.args.length) {
    throw new UsageError(`${command.name} takes ${command.args.map((a) => `<${a}>`).join(' ') || 'no arguments'}.`, command);
  }
  const values = parsed.values as Values;
  return { command, help: false, values, work: command.prepare(parsed.positionals, values) } as const;
}

async function main(argv: string[]): Promise<number> {
  let invocation;
  try {
    invocation = parseCommandLine(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\n\n${usage(error.command)}`);
    return exitCode.usage;
  }
  if (!invocation || invocation.help) {
    console.log(usage(invocation?.command));
    return exitCode.ok;
  }
  const { work, values } = invocation;
  const out: Output = {
    result: (text, data) => console.log(values.json ? JSON.stringify(data) : text),
  };

  const config = loadConfig(process.env);
  const db = await openDatabase(config.db);
  try {
    const applied = await migrateIfPending(db);
    if (applied.length) console.error(`Applied migrations: ${applied.join(', ')}`);
    await work(db, out);
    return exitCode.ok;
  } catch (error) {
    if (error instanceof DuplicateTenantError) {
      console.error(error.message);
      return exitCode.duplicate;
    }
    if (error instanceof AppError) {
      console.error(error.message);
      return error.code === 'not_found' ? exitCode.unknownTenant : exitCode.usage;
    }
    throw error;
  } finally {
    await db.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    // Expected failures get one plain line; anything else keeps its stack for the operator.
    if (isDatabaseUnavailable(error)) console.error(`The database is unreachable: ${(error as Error).message}`);
    else if (error instanceof DatabaseInUseError || error instanceof ConfigError) console.error(error.message);
    else console.error(error);
    process.exit(exitCode.failed);
  },
);

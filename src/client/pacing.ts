/**
 * Pacing by the service's rate-limit headers (docs/guides/rate-limits.md): every ingestion answer of a
 * limited tenant carries `RateLimit-Policy: "ingest";q=<bucket size>;w=<seconds to refill it>` and
 * `RateLimit: "ingest";r=<records left>;t=<seconds until full>`. The pacer keeps its own copy of the
 * tenant's token bucket (size q, refilled at q/w records a second), lowered to what each answer says is
 * left, and makes a request of n records wait until its copy holds n: the tenant's limit is then met by
 * waiting here, not by 429s. Until the first answer the policy is unknown: one request at a time goes.
 */

/** The tenant's bucket as the headers describe it. */
export interface RatePolicy {
  /** Bucket size in records (the largest burst). */
  burst: number;
  /** Records added a second. */
  perSecond: number;
}

/** A structured-field parameter of the `"ingest"` item of a RateLimit header: `q=10000`. */
function parameter(header: string | null, name: string): number | undefined {
  if (!header) return undefined;
  const item = header.split(',').find((part) => part.trim().startsWith('"ingest"'));
  const found = item?.match(new RegExp(`;\\s*${name}=(\\d+(?:\\.\\d+)?)`));
  return found ? Number(found[1]) : undefined;
}

/** The policy and the records left an answer announces; null policy: the tenant has no limit. */
function readRateLimit(headers: Headers): { policy: RatePolicy | null; remaining?: number } {
  const burst = parameter(headers.get('ratelimit-policy'), 'q');
  const window = parameter(headers.get('ratelimit-policy'), 'w');
  if (burst === undefined || window === undefined || burst <= 0 || window <= 0) return { policy: null };
  return { policy: { burst, perSecond: burst / window }, remaining: parameter(headers.get('ratelimit'), 'r') };
}

export interface Pacer {
  /** Waits until `records` may be sent (taking them from the local bucket); the ticket goes to `observe`. */
  reserve(records: number): Promise<Ticket>;
  /** Reads the headers of an accepted ingestion answer (a 200) to the request of `ticket`. */
  observe(headers: Headers, ticket: Ticket): void;
  /** A 429: the bucket is empty now. */
  refused(): void;
  /** A request is over, whatever its answer: the next may learn the policy if this one did not. */
  settle(): void;
  /** The policy learnt so far: undefined before the first answer, null when the tenant has no limit. */
  readonly policy: RatePolicy | null | undefined;
  /** Milliseconds spent waiting for tokens. */
  readonly waitedMs: number;
}

/** When a request was let go, and the records reserved up to it (its own included). */
export interface Ticket {
  at: number;
  reserved: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createPacer(now: () => number = () => performance.now()): Pacer {
  let policy: RatePolicy | null | undefined;
  let tokens = 0;
  let at = now();
  let waitedMs = 0;
  /** Records reserved since the start (a ticket's `reserved` is this total at its turn). */
  let reserved = 0;
  /** Reservations are served one after the other (a request never overtakes an earlier one). */
  let queue: Promise<void> = Promise.resolve();
  /** While the policy is unknown, one request goes alone: the gate opens when it is over. */
  let gate: Promise<void> | undefined;
  let openGate = () => {};

  /**
   * The local bucket refills up to half the tenant's bucket only (it starts from what the service says
   * is left, up to all of it): the service takes a request's records when it reads the request, later
   * than it was let go here when it is busy, and records refilled into a full bucket are lost. The
   * headroom absorbs that; the refill rate, the long-run pace, is the tenant's.
   */
  const refill = () => {
    const time = now();
    if (policy) tokens = Math.max(tokens, Math.min(policy.burst / 2, tokens + ((time - at) * policy.perSecond) / 1000));
    at = time;
  };

  async function take(records: number): Promise<Ticket> {
    while (policy === undefined && gate) await gate;
    if (policy === undefined) gate = new Promise<void>((resolve) => (openGate = resolve));
    if (policy) await wait(records);
    reserved += records;
    return { at: now(), reserved };
  }

  async function wait(records: number) {
    if (!policy) return;
    const cost = Math.min(records, policy.burst);
    refill();
    if (tokens < cost) {
      const waitMs = ((cost - tokens) * 1000) / policy.perSecond;
      waitedMs += waitMs;
      await sleep(waitMs);
      refill();
    }
    tokens -= cost;
  }

  return {
    reserve(records) {
      const turn = queue.then(() => take(records));
      queue = turn.then(
        () => {},
        () => {},
      );
      return turn;
    },
    observe(headers, ticket) {
      const { policy: announced, remaining } = readRateLimit(headers);
      refill();
      if (!announced) {
        policy = null;
      } else if (!policy || announced.burst !== policy.burst || announced.perSecond !== policy.perSecond) {
        // The first answer, or the tenant's limit changed: start from what the service says is left.
        policy = announced;
        tokens = remaining ?? 0;
      } else if (remaining !== undefined) {
        // What the service had left when it took this request, refilled since, less what was let go
        // after it: lower than the local copy when someone else spends the tenant's records.
        const since = ((now() - ticket.at) * policy.perSecond) / 1000;
        tokens = Math.min(tokens, remaining + since - (reserved - ticket.reserved));
      }
    },
    refused() {
      refill();
      tokens = 0;
    },
    settle() {
      if (!gate) return;
      gate = undefined;
      openGate();
    },
    get policy() {
      return policy;
    },
    get waitedMs() {
      return waitedMs;
    },
  };
}

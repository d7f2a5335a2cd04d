/**
 * Failed-key throttling per client address. Within one minute (counted from an address's first
 * failure) an address may fail `perMinute` times untouched; the next `perMinute` failures are each
 * answered more slowly (`delayStepMs` more per failure, at most 2 s); past that, the address is
 * blocked for `blockSeconds`: its failing requests get 429 at once. Valid keys are never refused or
 * slowed, so an integration behind the same NAT as a misbehaving one keeps working.
 *
 * Unknown and revoked keys take the same path (both are "no active key"), so they are throttled alike.
 */
import type { Clock } from '../clock.js';

export interface AuthFailureOptions {
  perMinute: number;
  blockSeconds: number;
  delayStepMs: number;
  clock: Clock;
  /** Addresses tracked at once; the least recently failing are forgotten first. */
  maxAddresses?: number;
}

/** What to do with one failed authentication. */
export interface FailureVerdict {
  /** Delay before answering 401 (0 = none). */
  delayMs: number;
  /** > 0: answer 429 with this Retry-After instead of 401. */
  retryAfterSeconds: number;
}

const windowMs = 60_000;
const maxDelayMs = 2_000;

export function createAuthFailureThrottle({ perMinute, blockSeconds, delayStepMs, clock, maxAddresses = 50_000 }: AuthFailureOptions) {
  const addresses = new Map<string, { since: number; failures: number; blockedUntil: number }>();

  return {
    /** Counts a failed authentication from `address` and says how to answer it. */
    fail(address: string): FailureVerdict {
      const now = clock.now().getTime();
      let entry = addresses.get(address);
      addresses.delete(address);
      if (entry && entry.blockedUntil > now) {
        addresses.set(address, entry);
        return { delayMs: 0, retryAfterSeconds: Math.ceil((entry.blockedUntil - now) / 1000) };
      }
      if (!entry || entry.blockedUntil > 0 || now - entry.since >= windowMs) entry = { since: now, failures: 0, blockedUntil: 0 };
      entry.failures += 1;
      if (addresses.size >= maxAddresses) addresses.delete(addresses.keys().next().value!);
      addresses.set(address, entry);
      if (entry.failures <= perMinute) return { delayMs: 0, retryAfterSeconds: 0 };
      if (entry.failures <= 2 * perMinute) return { delayMs: Math.min(maxDelayMs, (entry.failures - perMinute) * delayStepMs), retryAfterSeconds: 0 };
      entry.blockedUntil = now + blockSeconds * 1000;
      return { delayMs: 0, retryAfterSeconds: blockSeconds };
    },
  };
}

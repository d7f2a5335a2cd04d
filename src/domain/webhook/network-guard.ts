/**
 * Server-side request forgery guard: webhook URLs must not reach private, loopback, link-local or
 * otherwise non-public addresses (cloud metadata at 169.254.169.254, the database next door…).
 * Checked when an endpoint is saved and again when each attempt connects, on the addresses DNS gave
 * for that very connection (so a name re-pointed to 127.0.0.1 after saving is refused too).
 * `WEBHOOK_ALLOW_PRIVATE_NETWORKS=true` turns the guard off (development and tests).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { lookup as dnsLookupAsync } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** True for globally routable unicast addresses only (IPv4-mapped IPv6 is judged as IPv4). */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

export class RefusedAddressError extends Error {
  override readonly name = 'RefusedAddressError';
  readonly code = 'EWEBHOOKADDRESS';
}

const refused = (host: string, address: string) =>
  new RefusedAddressError(`${host} resolves to ${address}, a private, loopback, link-local or reserved address; webhooks only reach public addresses`);

/** The host of a URL as DNS or `isIP` takes it (IPv6 literals without brackets). */
export const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Why a URL may not receive webhooks, or null when it may: its host is a refused IP literal, or a
 * name that resolves to one (or does not resolve at all).
 */
export async function refusalOf(url: URL): Promise<string | null> {
  const host = hostOf(url);
  if (isIP(host)) return isPublicAddress(host) ? null : refused(host, host).message;
  let addresses: LookupAddress[];
  try {
    addresses = await dnsLookupAsync(host, { all: true, verbatim: true });
  } catch {
    return `${host} does not resolve`;
  }
  const bad = addresses.find((a) => !isPublicAddress(a.address));
  return bad ? refused(host, bad.address).message : null;
}

/**
 * A `lookup` for http.request that resolves as usual and fails the connection when any address is
 * not public. IP-literal hosts never reach a lookup: check them with `refusalOf` first.
 */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', undefined);
    const list = addresses;
    const bad = list.find((a) => !isPublicAddress(a.address));
    if (bad) return callback(refused(hostname, bad.address), '', undefined);
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
    const [first] = list;
    if (!first) return callback(Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' }), '', undefined);
    callback(null, first.address, first.family);
  });
};

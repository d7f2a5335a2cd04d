/**
 * `serverAddress` (src/startup.ts): the start-up line and block name the configured HOST, with a URL
 * that works; every interface (0.0.0.0, ::) is said as such, with localhost's URL to use from here.
 */
import { describe, expect, test } from 'vitest';
import { serverAddress } from '../../src/startup.js';

describe('serverAddress', () => {
  test('a given IPv4 address or name is the URL', () => {
    expect(serverAddress('127.0.0.1', 3000)).toEqual({ base: 'http://127.0.0.1:3000', listening: 'http://127.0.0.1:3000', allInterfaces: false });
    expect(serverAddress('ingest.internal', 8080).base).toBe('http://ingest.internal:8080');
  });

  test('an IPv6 address is bracketed', () => {
    expect(serverAddress('::1', 3000).base).toBe('http://[::1]:3000');
  });

  test.each(['0.0.0.0', '::'])('%s is said to be every interface, with the URL to use from this machine', (host) => {
    const address = serverAddress(host, 3000);
    expect(address.base).toBe('http://localhost:3000');
    expect(address.allInterfaces).toBe(true);
    expect(address.listening).toBe(`${host} port 3000, every interface (from this machine: http://localhost:3000)`);
  });
});

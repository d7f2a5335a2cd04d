/** Webhook building blocks without a database: Standard Webhooks signatures and the address guard. */
import { describe, expect, test } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { isPublicAddress } from '../../src/domain/webhook/network-guard.js';
import { newWebhookSecret, webhookHeaders } from '../../src/domain/webhook/signing.js';

describe('webhook signatures', () => {
  test('headers signed with one or two secrets verify with the standardwebhooks package under each secret', () => {
    const [current, previous, stranger] = [newWebhookSecret(), newWebhookSecret(), newWebhookSecret()];
    const body = JSON.stringify({ type: 'load.created', timestamp: '2026-11-23T10:00:00.000Z', data: { n: 'é✓' } });
    const now = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders([current, previous], 'msg_42', now, body);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=* v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(stranger).verify(body, headers)).toThrow();
    expect(() => new Webhook(current).verify(body, { ...headers, 'webhook-id': 'msg_43' })).toThrow();
  });
});

describe('isPublicAddress', () => {
  test.each([
    ['93.184.215.14', true],
    ['8.8.8.8', true],
    ['2606:4700:4700::1111', true],
    ['127.0.0.1', false],
    ['10.0.0.1', false],
    ['172.31.255.255', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['::1', false],
    ['::', false],
    ['fe80::1', false],
    ['fd12:3456::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:93.184.215.14', true],
    ['not an address', false],
  ])('%s → %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

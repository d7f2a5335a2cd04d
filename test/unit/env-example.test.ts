/**
 * `.env.example` stays true: every setting it shows (commented out or not) is one the service reads and accepts
 * (the OpenTelemetry SDK's `OTEL_*` ones: documented in the configuration reference, and accepted by the tracing start).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { configVariables, loadConfig } from '../../src/config.js';
import { otlpProtocol, traceExporters } from '../../src/observability/tracing.js';

const lines = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8').split('\n');
const settings = lines.flatMap((line) => {
  const match = /^#?\s*([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim());
  return match ? [{ name: match[1]!, value: match[2]! }] : [];
});

describe('.env.example', () => {
  test('names only variables the service reads, and most of them', () => {
    expect(settings.length).toBeGreaterThanOrEqual(8);
    const reference = readFileSync(new URL('../../docs/reference/configuration.md', import.meta.url), 'utf8');
    for (const { name } of settings) {
      if (name.startsWith('OTEL_')) expect(reference, name).toContain(`\`${name}\``);
      else expect(configVariables, name).toContain(name);
    }
  });

  test('every value shown (blank ones unset) is accepted by the configuration', () => {
    const env = Object.fromEntries(settings.map(({ name, value }) => [name, value]));
    expect(() => loadConfig(env)).not.toThrow();
    expect(traceExporters(env)).toEqual(['otlp']);
    expect(otlpProtocol(env)).toBe('http/protobuf');
  });
});

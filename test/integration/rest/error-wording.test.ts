/**
 * A rejected field is described in the service's words, not its validator's, and once: each kind of
 * range or format issue (number bounds, an integer ≥ 1, a maximum length, an empty permalink, a
 * date-time, an enum value) over REST and, where GraphQL's own types let the value through, GraphQL.
 */
import { describe, expect, test } from '../../fixtures.js';
import { routes, seedParents, stopBody, loadUpdateBody } from '../../factories/records.js';
import { gqlError, toInput, upsertMutations } from '../../factories/graphql.js';

/** Our sentence for each kind of issue (docs/reference/errors.md). */
const dateTimeIssue = 'must be an ISO 8601 date-time with a zone, e.g. 2026-05-01T14:00:00Z';

/** The details of a 400, sorted by field, after checking that no field is named twice. */
function detailsOf(body: { error: { code: string; details: { field: string; issue: string }[] } }) {
  expect(body.error.code).toBe('validation_failed');
  const fields = body.error.details.map((d) => d.field);
  expect(new Set(fields).size, `one issue per field: ${JSON.stringify(body.error.details)}`).toBe(fields.length);
  return [...body.error.details].sort((a, b) => a.field.localeCompare(b.field));
}

describe('error wording over REST', () => {
  test('a stop out of every range gets one issue per field, each in our words', async ({ api, tenant }) => {
    const { leg } = await seedParents(api, tenant);
    const res = await api.post(
      routes.stop,
      stopBody(tenant, leg, { latitude: 91, longitude: -200, stop_sequence: 0, stop_type: 'dock', city: 'x'.repeat(101), arrived_at: 'yesterday' }),
    );
    expect(res.status).toBe(400);
    expect(detailsOf(res.body)).toEqual([
      { field: 'arrived_at', issue: dateTimeIssue },
      { field: 'city', issue: 'must be at most 100 characters' },
      { field: 'latitude', issue: 'must be between -90 and 90' },
      { field: 'longitude', issue: 'must be between -180 and 180' },
      { field: 'stop_sequence', issue: 'must be between 1 and 2147483647' },
      { field: 'stop_type', issue: 'must be one of pickup, delivery' },
    ]);
    expect(JSON.stringify(res.body)).not.toMatch(/Too small|Too big|Invalid option|Invalid input|expected/);
  });

  test('a bad occurred_at is named once: its format, or its year range when the format is right', async ({ api, tenant }) => {
    const { load } = await seedParents(api, tenant);
    const notADate = await api.post(routes.load_update, loadUpdateBody(tenant, load, { occurred_at: 'yesterday', update_type: 'fax' }));
    expect(notADate.status).toBe(400);
    expect(detailsOf(notADate.body)).toEqual([
      { field: 'occurred_at', issue: dateTimeIssue },
      { field: 'update_type', issue: 'must be one of check_call, gps_ping, status_remark' },
    ]);
    const yearZero = await api.post(routes.load_update, loadUpdateBody(tenant, load, { occurred_at: '0000-06-01T00:00:00Z' }));
    expect(yearZero.status).toBe(400);
    expect(detailsOf(yearZero.body)).toEqual([{ field: 'occurred_at', issue: 'must lie between the years 0001 and 9999 (UTC)' }]);
  });

  test('an empty permalink is one issue (not also its missing tenant suffix)', async ({ api, tenant }) => {
    const { leg } = await seedParents(api, tenant);
    const res = await api.post(routes.stop, stopBody(tenant, leg, { native_system_stop_permalink: '' }));
    expect(res.status).toBe(400);
    expect(detailsOf(res.body)).toEqual([{ field: 'native_system_stop_permalink', issue: 'must not be empty' }]);
  });
});

describe('error wording over GraphQL', () => {
  test('the same stop gets the same words, with the input field names', async ({ api, tenant }) => {
    const { leg } = await seedParents(api, tenant);
    // Enum values and date-times are GraphQL types: GraphQL's validation refuses them before our rules.
    const input = toInput(stopBody(tenant, leg, { latitude: 91, longitude: -200, stop_sequence: 0, city: 'x'.repeat(101) }));
    const { error } = await gqlError(api, upsertMutations.stop, { input });
    expect(detailsOf({ error: { code: error.extensions!.code!, details: error.extensions!.details! } })).toEqual([
      { field: 'city', issue: 'must be at most 100 characters' },
      { field: 'latitude', issue: 'must be between -90 and 90' },
      { field: 'longitude', issue: 'must be between -180 and 180' },
      { field: 'stopSequence', issue: 'must be between 1 and 2147483647' },
    ]);
    const empty = await gqlError(api, upsertMutations.stop, {
      input: { ...input, latitude: null, longitude: null, stopSequence: 1, city: null, nativeSystemStopPermalink: '' },
    });
    expect(empty.error.extensions?.details).toEqual([{ field: 'nativeSystemStopPermalink', issue: 'must not be empty' }]);
  });
});

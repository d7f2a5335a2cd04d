import { describe, expect, test } from '../../fixtures.js';
import { loadBody, routes, seed } from '../../factories/records.js';
import { gqlData, gqlError } from '../../factories/graphql.js';

const editLoad = `mutation ($p: String!, $patch: LoadPatch!) {
  editLoad(permalink: $p, patch: $patch) { permalink status phase bolNumber poNumber customerName extra changedAt phaseHistory { fromPhase toPhase status } }
}`;

describe('editLoad', () => {
  test('changes only the given fields (null clears), sets changedAt to now and answers the load', async ({ api, tenant, testApp }) => {
    const load = await seed(api, routes.load, loadBody(tenant, { customer_name: 'Acme' }));
    testApp.clock.advance(60_000);
    const now = testApp.clock.now();
    const data = await gqlData(api, editLoad, {
      p: load.native_system_load_permalink,
      patch: { bolNumber: 'BOL-EDITED', poNumber: null, extra: { note: 'called' } },
    });
    expect(data.editLoad).toMatchObject({
      permalink: load.native_system_load_permalink,
      bolNumber: 'BOL-EDITED',
      poNumber: null,
      customerName: 'Acme',
      status: 'Booked',
      extra: { note: 'called' },
    });
    expect(Date.parse(data.editLoad.changedAt)).toBeGreaterThanOrEqual(now.getTime());
    expect(Date.parse(data.editLoad.changedAt) - now.getTime()).toBeLessThan(60_000);
  });

  test('a later REST upsert whose sync_run_time is older than the edit is skipped; a newer one is applied', async ({ api, tenant, testApp }) => {
    const load = await seed(api, routes.load, loadBody(tenant));
    await api.post(`${routes.load}?sync_run_time=${new Date(testApp.clock.now().getTime() - 3_600_000).toISOString()}`, load);
    const beforeEdit = new Date(testApp.clock.now().getTime() - 1000).toISOString();
    await gqlData(api, editLoad, { p: load.native_system_load_permalink, patch: { bolNumber: 'USER' } });

    const stale = await api.post(`${routes.load}?sync_run_time=${beforeEdit}`, { ...load, bol_number: 'TMS-STALE' });
    expect(stale.body).toMatchObject({ status: 'skipped' });
    testApp.clock.advance(60_000);
    const fresh = await api.post(`${routes.load}?sync_run_time=${testApp.clock.now().toISOString()}`, { ...load, bol_number: 'TMS-FRESH' });
    expect(fresh.body).toMatchObject({ status: 'processed' });
    expect((await gqlData(api, 'query ($p: String!) { load(permalink: $p) { bolNumber } }', { p: load.native_system_load_permalink })).load.bolNumber).toBe(
      'TMS-FRESH',
    );
  });

  test('a status change re-derives the phase from the mapping and is recorded in the phase history', async ({ api, tenant }) => {
    await gqlData(api, 'mutation { setStatusMapping(status: "Delivered", phase: DELIVERED) { phase } }');
    const load = await seed(api, routes.load, loadBody(tenant));
    const delivered = await gqlData(api, editLoad, { p: load.native_system_load_permalink, patch: { nativeSystemLoadStatus: ' DELIVERED ' } });
    expect(delivered.editLoad).toMatchObject({
      status: ' DELIVERED ',
      phase: 'DELIVERED',
      phaseHistory: [
        { fromPhase: null, toPhase: 'UNMAPPED', status: 'Booked' },
        { fromPhase: 'UNMAPPED', toPhase: 'DELIVERED', status: ' DELIVERED ' },
      ],
    });
    const other = await gqlData(api, editLoad, { p: load.native_system_load_permalink, patch: { customerName: 'No status change' } });
    expect(other.editLoad.phase).toBe('DELIVERED');
    const cleared = await gqlData(api, editLoad, { p: load.native_system_load_permalink, patch: { nativeSystemLoadStatus: null } });
    expect(cleared.editLoad).toMatchObject({ status: null, phase: 'UNMAPPED' });
  });

  test('rejects an empty patch, a field over its max length and an unknown load', async ({ api, tenant }) => {
    const load = await seed(api, routes.load, loadBody(tenant));
    const empty = await gqlError(api, editLoad, { p: load.native_system_load_permalink, patch: {} });
    expect(empty.error.extensions).toEqual({ code: 'validation_failed', details: [{ field: 'patch', issue: expect.any(String) }] });
    const tooLong = await gqlError(api, editLoad, { p: load.native_system_load_permalink, patch: { bolNumber: 'x'.repeat(251) } });
    expect(tooLong.error.extensions).toEqual({ code: 'validation_failed', details: [{ field: 'bolNumber', issue: 'must be at most 250 characters' }] });
    const badPermalink = await gqlError(api, editLoad, { p: load.native_system_load_permalink, patch: { originStopIdPermalink: 'O1-elsewhere' } });
    expect(badPermalink.error.extensions?.details).toEqual([{ field: 'originStopIdPermalink', issue: expect.stringContaining(tenant.slug) }]);
    const unknown = await gqlError(api, editLoad, { p: `NOPE-${tenant.slug}`, patch: { bolNumber: 'X' } });
    expect(unknown.error.extensions?.code).toBe('not_found');
  });

  test('the patch has no permalink field: a load cannot be renamed', async ({ api, tenant }) => {
    const load = await seed(api, routes.load, loadBody(tenant));
    const res = await api.graphql(editLoad, { p: load.native_system_load_permalink, patch: { nativeSystemLoadPermalink: `OTHER-${tenant.slug}` } });
    expect(res.body.errors[0].message).toContain('nativeSystemLoadPermalink');
  });
});
